/* slowloris.c - many connections to a loopback port that trickle a request's headers, for a bounded time */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/*
 * usage: slowloris PORT CONNECTIONS ADDRESSES EVERY_MS SECONDS [READY_FILE]
 *
 * Opens CONNECTIONS connections to 127.0.0.1:PORT, the i-th from source
 * address 127.0.0.(2 + i % ADDRESSES) (loopback only), each sending a
 * request line and then one more header line every EVERY_MS ms, never the
 * blank line that ends the headers.  After opening them all it writes
 * READY_FILE (if given); after SECONDS it closes everything and prints
 *   opened=N refused=N closed=N first_close_ms=N
 * (refused: connect() failed; closed: the server closed or reset the
 * connection; first_close_ms: time from the first connection's opening
 * to when the server closed it, -1 if it did not).  Exit status 0, or 2
 * on bad arguments.
 */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	int port, n, naddr, every, secs, i, *fd, opened = 0, refused = 0, closed = 0;
	long long start, end, next, first_close = -1, t0 = 0;
	struct rlimit rl;
	struct pollfd *pf;

	if (argc < 6 || argc > 7) {
		fprintf(stderr, "usage: slowloris PORT CONNECTIONS ADDRESSES EVERY_MS SECONDS [READY_FILE]\n");
		return 2;
	}
	port = atoi(argv[1]);
	n = atoi(argv[2]);
	naddr = atoi(argv[3]);
	every = atoi(argv[4]);
	secs = atoi(argv[5]);
	if (port <= 0 || port > 65535 || n <= 0 || n > 5000 || naddr <= 0 || naddr > 250 ||
	    every <= 0 || secs <= 0 || secs > 120) {
		fprintf(stderr, "slowloris: argument out of range\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)n + 16) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)n + 16 ? rl.rlim_max : (rlim_t)n + 16;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fd = calloc((size_t)n, sizeof(*fd));
	pf = calloc((size_t)n, sizeof(*pf));
	if (!fd || !pf)
		return 1;
	for (i = 0; i < n; i++)
		fd[i] = -1;
	start = now_ms();
	end = start + secs * 1000LL;
	for (i = 0; i < n; i++) {
		struct sockaddr_in src, dst;
		struct timeval tv = { 1, 0 };
		static const char line[] = "GET /api/v1/info HTTP/1.1\r\nHost: x\r\n";

		fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd[i] < 0) {
			refused++;
			continue;
		}
		setsockopt(fd[i], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		memset(&src, 0, sizeof(src));
		src.sin_family = AF_INET;
		src.sin_addr.s_addr = htonl(0x7f000002u + (unsigned)(i % naddr));
		memset(&dst, 0, sizeof(dst));
		dst.sin_family = AF_INET;
		dst.sin_port = htons((uint16_t)port);
		dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(fd[i], (struct sockaddr *)&src, sizeof(src)) ||
		    connect(fd[i], (struct sockaddr *)&dst, sizeof(dst)) ||
		    send(fd[i], line, sizeof(line) - 1, MSG_NOSIGNAL) < 0) {
			close(fd[i]);
			fd[i] = -1;
			refused++;
			continue;
		}
		if (!opened)
			t0 = now_ms();
		opened++;
		if (now_ms() >= end)
			break;
	}
	if (argc == 7) {
		FILE *f = fopen(argv[6], "w");

		if (f) {
			fprintf(f, "opened=%d refused=%d\n", opened, refused);
			fclose(f);
		}
	}
	next = now_ms() + every;
	while (now_ms() < end) {
		int k = 0, r, wait = (int)(next - now_ms());

		for (i = 0; i < n; i++) {
			pf[i].fd = fd[i];
			pf[i].events = POLLIN;
			pf[i].revents = 0;
			k += fd[i] >= 0;
		}
		if (!k)
			break;
		if (wait > (int)(end - now_ms()))
			wait = (int)(end - now_ms());
		r = poll(pf, (nfds_t)n, wait < 0 ? 0 : wait);
		for (i = 0; r > 0 && i < n; i++) {
			char buf[4096];

			if (fd[i] < 0 || !pf[i].revents)
				continue;
			if (recv(fd[i], buf, sizeof(buf), MSG_DONTWAIT) > 0)
				continue;       /* an answer: not expected, but not a close */
			if (first_close < 0 && i == 0)
				first_close = now_ms() - t0;
			close(fd[i]);
			fd[i] = -1;
			closed++;
		}
		if (now_ms() >= next) {
			for (i = 0; i < n; i++) {
				if (fd[i] >= 0 && send(fd[i], "X-a: b\r\n", 8, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
				    errno != EAGAIN) {
					if (first_close < 0 && i == 0)
						first_close = now_ms() - t0;
					close(fd[i]);
					fd[i] = -1;
					closed++;
				}
			}
			next += every;
		}
	}
	for (i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	printf("opened=%d refused=%d closed=%d first_close_ms=%lld\n", opened, refused, closed,
	       first_close);
	free(fd);
	free(pf);
	return 0;
}
