/* load.c — the live suite's workloads, each ending by itself after SECONDS (the suite also stops
 * them by PID). Compiled by live_lib.sh with cc; small enough that the syscalls it makes are the
 * incident, with nothing beside them (no interpreter, no library).
 *
 *   load spin SECONDS                user CPU, no syscalls
 *   load pread FILE SECONDS          pread(fd, buf, 4096, 0) in a loop: a syscall storm
 *   load udpsend PORT RATE SECONDS   UDP to 127.0.0.1:PORT, RATE packets/s (0: as fast as it can)
 *   load udprecv PORT SECONDS        receive and drop UDP on 127.0.0.1:PORT
 *   load dio FILE SECONDS            4 KiB O_DIRECT writes over a 64 MiB file: one disk interrupt each
 *   load mem MIB SECONDS             touch MIB of memory a page at a time, over and over (swaps in a
 *                                    memory-limited cgroup)
 *   load memwait FIRST MIB SECONDS   the same, but touch FIRST MiB, then wait for SIGUSR1: the
 *                                    suite starts the hog before the onset, so swapping begins at it
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <signal.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int udp_socket(int port, struct sockaddr_in *ret_addr)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	memset(ret_addr, 0, sizeof(*ret_addr));
	ret_addr->sin_family = AF_INET;
	ret_addr->sin_port = htons(port);
	ret_addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return fd;
}

/* Paced sending works in 1 ms batches against an absolute schedule, so the rate holds when a
 * batch costs more (the netfilter case raises the cost per packet, never the rate). */
static int udpsend(int port, long rate, double end)
{
	struct sockaddr_in to;
	char buf[64] = {0};
	int fd = udp_socket(port, &to);
	if (fd < 0)
		return 1;
	double start = now();
	long sent = 0;
	while (now() < end) {
		if (rate > 0) {
			long due = (long)((now() - start) * rate);
			if (sent >= due) {
				usleep(1000);
				continue;
			}
		}
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) >= 0 || rate > 0)
			sent++;
	}
	return 0;
}

static int udprecv(int port, double end)
{
	struct sockaddr_in at;
	char buf[2048];
	int fd = udp_socket(port, &at);
	struct timeval tv = {.tv_sec = 0, .tv_usec = 200000};
	if (fd < 0 || bind(fd, (struct sockaddr *)&at, sizeof(at)) < 0)
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (now() < end)
		(void)!recv(fd, buf, sizeof(buf), 0);
	return 0;
}

static int dio(const char *path, double end)
{
	const long span = 64L << 20, block = 4096;
	void *buf;
	int fd = open(path, O_WRONLY | O_CREAT | O_DIRECT, 0600);
	if (fd < 0 || posix_memalign(&buf, block, block) != 0) {
		perror(path);
		return 1;
	}
	memset(buf, 0x5a, block);
	for (long off = 0; now() < end; off = (off + block) % span)
		if (pwrite(fd, buf, block, off) != block) {
			perror("pwrite");
			return 1;
		}
	return 0;
}

static int mem(long first_mib, long mib, double end)
{
	long size = mib << 20, page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	if (first_mib > 0) {
		sigset_t usr1;
		int sig;
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		for (long off = 0; off < (first_mib << 20) && off < size; off += page)
			p[off] = 1;
		sigwait(&usr1, &sig);
	}
	for (char v = 2; now() < end; v++)
		for (long off = 0; off < size && now() < end; off += page)
			p[off] = v;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: see load.c\n");
		return 2;
	}
	const char *mode = argv[1];
	double end = now() + atof(argv[argc - 1]);
	if (!strcmp(mode, "spin")) {
		for (volatile unsigned long x = 0; now() < end;)
			for (int i = 0; i < 1000000; i++)
				x += i;
		return 0;
	}
	if (!strcmp(mode, "pread") && argc == 4) {
		/* A page a call: the copy keeps the kernel's part of each call well above the loop's (with 1
		 * byte a call, a VM with cheap syscall entry measured 41-45% system against 55-59% user
		 * beside the hog: no longer the kernel eating the CPUs). */
		static char page[4096];
		int fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return 1;
		while (now() < end)
			for (int i = 0; i < 1000; i++)
				(void)!pread(fd, page, sizeof(page), 0);
		return 0;
	}
	if (!strcmp(mode, "udpsend") && argc == 5)
		return udpsend(atoi(argv[2]), atol(argv[3]), end);
	if (!strcmp(mode, "udprecv") && argc == 4)
		return udprecv(atoi(argv[2]), end);
	if (!strcmp(mode, "dio") && argc == 4)
		return dio(argv[2], end);
	if (!strcmp(mode, "mem") && argc == 4)
		return mem(0, atol(argv[2]), end);
	if (!strcmp(mode, "memwait") && argc == 5)
		return mem(atol(argv[2]), atol(argv[3]), end);
	fprintf(stderr, "load: bad arguments for %s\n", mode);
	return 2;
}
