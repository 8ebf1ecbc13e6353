/* guard.c - vmmprofd's connection guard: limits per address and in all, a request deadline */
#include "daemon/daemon.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/timeutil.h"

/*
 * Why: libmicrohttpd's own connection timeout restarts on every byte, so a
 * client trickling one header line every few seconds holds a connection
 * (and, thread per connection, a thread) for ever; and its limits refuse the
 * newest connection when full, so a thousand such clients keep everyone
 * else out.  Here every connection is known from accept to close: one that
 * has not delivered a whole request within request_timeout_s is shut down
 * (the deadline counts from accept, or from the end of the previous request
 * on a kept-alive connection, and nothing the client sends extends it), and
 * when max_connections are open a new connection takes the place of the one
 * that has waited longest for its request; a client whose request arrived
 * is never pushed out.  Refusals and closings are logged at most once a
 * minute, as counts.
 */

#define LOG_EVERY_NS (60ull * 1000000000ull)
#define TICK_MS 200

struct vpd_conn {
	struct vpd_conn *prev, *next;
	int fd;
	int family;
	unsigned char addr[16];
	uint64_t since_ns;          /* when it began waiting for its (next) request */
	bool waiting;               /* no whole request yet: the deadline runs */
	bool shut;                  /* shut down by the guard: closing */
};

struct vpd_guard {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct vpd_conn *head;
	size_t n;
	bool stop;
	pthread_t thread;
	bool have_thread;
	/* counts since the last log line */
	uint64_t refused_addr, refused_full, evicted, timed_out;
	uint64_t last_log_ns;
	bool logged_once;
};

static void addr_of(const struct sockaddr *sa, int *family, unsigned char out[16])
{
	memset(out, 0, 16);
	*family = sa ? sa->sa_family : AF_UNSPEC;
	if (sa && sa->sa_family == AF_INET)
		memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa && sa->sa_family == AF_INET6)
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* Shut a connection down (its thread sees the end and closes it); under the lock. */
static void shut(struct vpd_conn *c)
{
	if (c->shut)
		return;
	c->shut = true;
	shutdown(c->fd, SHUT_RDWR);
}

/* Log the counts when there are some and a minute passed since the last line; under the lock. */
static void maybe_log(struct vpd *d, struct vpd_guard *g, uint64_t now)
{
	if (!(g->refused_addr || g->refused_full || g->evicted || g->timed_out))
		return;
	if (g->logged_once && now - g->last_log_ns < LOG_EVERY_NS)
		return;
	fprintf(stderr, "vmmprofd: connections%s: %llu refused (over %d from one address), "
			"%llu refused (%d open, none waiting for its request), %llu closed to make room, "
			"%llu closed after %d s without a whole request\n",
		g->logged_once ? " in the last minute" : "",
		(unsigned long long)g->refused_addr, d->conf.max_connections_per_address,
		(unsigned long long)g->refused_full, d->conf.max_connections,
		(unsigned long long)g->evicted, (unsigned long long)g->timed_out,
		d->conf.request_timeout_s);
	g->refused_addr = g->refused_full = g->evicted = g->timed_out = 0;
	g->last_log_ns = now;
	g->logged_once = true;
}

enum MHD_Result vpd_guard_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct vpd *d = cls;
	struct vpd_guard *g = d->guard;
	struct vpd_conn *c, *oldest = NULL;
	unsigned char a[16];
	int family;
	size_t same = 0, live = 0;
	enum MHD_Result ret = MHD_YES;

	(void)len;
	addr_of(addr, &family, a);
	pthread_mutex_lock(&g->lock);
	for (c = g->head; c; c = c->next) {
		if (c->shut)
			continue;
		live++;
		if (c->family == family && !memcmp(c->addr, a, 16))
			same++;
		if (c->waiting && (!oldest || c->since_ns < oldest->since_ns))
			oldest = c;
	}
	if (same >= (size_t)d->conf.max_connections_per_address) {
		g->refused_addr++;
		ret = MHD_NO;
	} else if (live >= (size_t)d->conf.max_connections) {
		/* full: the one that waited longest for its request makes room, if any waits;
		 * connections being shut count too, up to a quarter more, so that a flood
		 * cannot open sockets faster than they close */
		if (oldest && g->n < (size_t)d->conf.max_connections + (size_t)d->conf.max_connections / 4) {
			shut(oldest);
			g->evicted++;
		} else {
			g->refused_full++;
			ret = MHD_NO;
		}
	}
	maybe_log(d, g, vp_now_ns());
	pthread_mutex_unlock(&g->lock);
	return ret;
}

void vpd_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe)
{
	struct vpd *d = cls;
	struct vpd_guard *g = d->guard;
	struct vpd_conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fi = MHD_get_connection_info(conn,
							MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ai = MHD_get_connection_info(conn,
							MHD_CONNECTION_INFO_CLIENT_ADDRESS);

		c = xcalloc(1, sizeof(*c));
		c->fd = fi ? fi->connect_fd : -1;
		addr_of(ai ? ai->client_addr : NULL, &c->family, c->addr);
		c->since_ns = vp_now_ns();
		c->waiting = true;
		c->shut = c->fd < 0;
		pthread_mutex_lock(&g->lock);
		c->next = g->head;
		if (g->head)
			g->head->prev = c;
		g->head = c;
		g->n++;
		pthread_mutex_unlock(&g->lock);
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	/* closed: libmicrohttpd closes the socket after this returns, so the guard
	 * never shuts a descriptor that another connection reuses */
	pthread_mutex_lock(&g->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	g->n--;
	pthread_mutex_unlock(&g->lock);
	free(c);
	*socket_context = NULL;
}

static struct vpd_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
						MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

void vpd_guard_request(struct vpd *d, struct MHD_Connection *conn, bool waiting)
{
	struct vpd_guard *g = d->guard;
	struct vpd_conn *c = conn_of(conn);

	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	c->waiting = waiting;
	c->since_ns = vp_now_ns();
	pthread_mutex_unlock(&g->lock);
}

static void *watchdog(void *arg)
{
	struct vpd *d = arg;
	struct vpd_guard *g = d->guard;
	uint64_t limit = (uint64_t)d->conf.request_timeout_s * 1000000000ull;

	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		uint64_t now = vp_now_ns(), next = now + TICK_MS * 1000000ull;
		struct timespec ts = { (time_t)(next / 1000000000ull), (long)(next % 1000000000ull) };
		struct vpd_conn *c;

		for (c = g->head; c; c = c->next) {
			if (c->waiting && !c->shut && now - c->since_ns >= limit) {
				shut(c);
				g->timed_out++;
			}
		}
		maybe_log(d, g, now);
		pthread_mutex_unlock(&g->lock);
		vpd_tick(d);
		pthread_mutex_lock(&g->lock);
		if (!g->stop)
			pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int vpd_guard_start(struct vpd *d)
{
	struct vpd_guard *g = xcalloc(1, sizeof(*g));
	pthread_condattr_t ca;

	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
	d->guard = g;
	if (pthread_create(&g->thread, NULL, watchdog, d)) {
		fprintf(stderr, "vmmprofd: error: cannot start the connection watchdog thread\n");
		return -1;
	}
	g->have_thread = true;
	return 0;
}

void vpd_guard_stop(struct vpd *d)
{
	struct vpd_guard *g = d->guard;

	if (!g || !g->have_thread)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	g->have_thread = false;
}

void vpd_guard_free(struct vpd *d)
{
	struct vpd_guard *g = d->guard;

	if (!g)
		return;
	vpd_guard_stop(d);
	while (g->head) {
		struct vpd_conn *c = g->head;

		g->head = c->next;
		free(c);
	}
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	free(g);
	d->guard = NULL;
}
