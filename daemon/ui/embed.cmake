# cmake -DIN=page.html -DOUT=ui_page.c -P embed.cmake: the page as a C array (pw_ui_page), so
# perfwatchd serves /ui from memory with no file to install and nothing fetched from elsewhere.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR len "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* Generated from ${IN} by daemon/ui/embed.cmake: do not edit. */\n#include <stddef.h>\n"
     "const unsigned char pw_ui_page[] = {\n${bytes}0};\nconst size_t pw_ui_page_len = ${len};\n")
