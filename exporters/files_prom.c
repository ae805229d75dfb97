/* files_prom.c — perfwatchd's own files as self-metrics: write errors counted and whether writing
 * fails now, per file. Only the files the daemon was told to write have series. */
#include "files_stats.h"

#include "prom_family.h"

static const struct pw_prom_family write_errors = PW_PROM_COUNTER(
        "file_write_errors", "Writes of perfwatchd's own files that failed: baselines and notification "
                             "queue saves, samples not recorded (perfwatch).");
static const struct pw_prom_family write_failing =
        PW_PROM_GAUGE("file_write_failing", "1 while the file's last write failed: disk full, read-only "
                                            "or directory removed (perfwatch).");

static const struct pw_prom_family writes_dropped = PW_PROM_COUNTER(
        "file_writes_dropped", "Writes of perfwatchd's own files given up because the writer thread was "
                               "behind (a slow or hanging disk): records that did not fit its queue, "
                               "baselines snapshots replaced by a newer one (perfwatch).");
static const struct pw_prom_family write_blocked = PW_PROM_GAUGE_UNIT(
        "file_write_blocked_seconds", "seconds",
        "How long the write of the file in progress has been waiting; 0: none in progress (perfwatch).");

static const char *const names[PW_FILE_COUNT] = {
        [PW_FILE_BASELINES] = "baselines",
        [PW_FILE_NOTIFICATIONS] = "notifications",
        [PW_FILE_RECORDING] = "recording",
        [PW_FILE_HISTORY] = "history",
};

const char *pw_own_file_str(enum pw_own_file f)
{
	return (unsigned)f < PW_FILE_COUNT ? names[f] : "unknown";
}

static void series(struct pw_outbuf *out, const struct pw_prom_family *family, int f, uint64_t value)
{
	pw_prom_sample_name(out, family);
	pw_outbuf_printf(out, "{file=\"%s\"} ", names[f]);
	pw_outbuf_u64(out, value);
	pw_outbuf_putc(out, '\n');
}

void pw_files_prom_render(struct pw_outbuf *out, bool om, const struct pw_files_stats *stats)
{
	bool any = false;

	for (int f = 0; stats && f < PW_FILE_COUNT; f++)
		any |= stats->file[f].configured;
	if (!any)
		return;
	pw_prom_banner(out, om, &write_errors);
	for (int f = 0; f < PW_FILE_COUNT; f++)
		if (stats->file[f].configured)
			series(out, &write_errors, f, stats->file[f].errors);
	pw_prom_banner(out, om, &write_failing);
	for (int f = 0; f < PW_FILE_COUNT; f++)
		if (stats->file[f].configured)
			series(out, &write_failing, f, stats->file[f].failing);
	pw_prom_banner(out, om, &writes_dropped);
	for (int f = 0; f < PW_FILE_COUNT; f++)
		if (stats->file[f].configured)
			series(out, &writes_dropped, f, stats->file[f].dropped);
	pw_prom_banner(out, om, &write_blocked);
	for (int f = 0; f < PW_FILE_COUNT; f++) {
		if (!stats->file[f].configured)
			continue;
		pw_prom_sample_name(out, &write_blocked);
		pw_outbuf_printf(out, "{file=\"%s\"} %.3f\n", names[f],
		                 (double)stats->file[f].blocked_ns / 1e9);
	}
}
