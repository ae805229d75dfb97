# install-unit.cmake — run by `cmake --install` (see the top CMakeLists.txt): writes
# perfwatchd.service with ExecStart naming the binary where this install puts it, since --prefix
# may differ from the configured one. In: PW_UNIT_IN, PW_UNIT_OUT, PW_SBINDIR, CMAKE_INSTALL_PREFIX.
if(IS_ABSOLUTE "${PW_SBINDIR}")
  set(sbin "${PW_SBINDIR}")
else()
  set(sbin "${CMAKE_INSTALL_PREFIX}/${PW_SBINDIR}")
endif()
file(READ "${PW_UNIT_IN}" unit)
string(REPLACE "ExecStart=/usr/sbin/perfwatchd" "ExecStart=${sbin}/perfwatchd" unit "${unit}")
file(WRITE "${PW_UNIT_OUT}" "${unit}")
