/* check.h - invariants the code relies on, checked where it relies on them */
#ifndef VP_CHECK_H
#define VP_CHECK_H

/*
 * Prose says an invariant once; these say it where the code relies on it,
 * as git's BUG() and SQLite's ALWAYS()/NEVER() do.
 *
 * VP_BUG_ON(cond): cond is impossible unless vmmprof itself is wrong (an
 * index past its table, a return value no caller handles).  Checked in
 * every build, so it must be cheap: one comparison.  When it holds, one line
 * on stderr names the file, the line and the condition, then abort(): going
 * on would read or write the wrong memory.  This and util/alloc.c's out of
 * memory are the library's only aborts (tests/cli/t0020-layers.sh).
 *
 * VP_ALWAYS(x) / VP_NEVER(x): the code handles the case it believes cannot
 * happen (a guard that returns an error or skips), and the guard says so:
 * in a release build they are x, so the guard still protects; in a
 * VP_DEBUG build (make SAN=1, the unit and CLI tests under ASan) reaching
 * the impossible case aborts, so the tests find it instead of the guard
 * hiding it.  Use them in conditions: if (VP_NEVER(n > cap)) return -1;
 */

_Noreturn void vp_bug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define VP_BUG(...) vp_bug(__FILE__, __LINE__, __VA_ARGS__)
#define VP_BUG_ON(cond) ((cond) ? vp_bug(__FILE__, __LINE__, "%s", #cond) : (void)0)

#ifdef VP_DEBUG
#define VP_ALWAYS(x) ((x) ? 1 : (vp_bug(__FILE__, __LINE__, "VP_ALWAYS(%s)", #x), 0))
#define VP_NEVER(x) ((x) ? (vp_bug(__FILE__, __LINE__, "VP_NEVER(%s)", #x), 1) : 0)
#else
#define VP_ALWAYS(x) (!!(x))
#define VP_NEVER(x) (!!(x))
#endif

#endif
