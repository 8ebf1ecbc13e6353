/* test.h - a tiny unit-test harness: TEST() registers, CHECK*() asserts */
#ifndef VP_TEST_H
#define VP_TEST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct test_case {
	const char *name;
	const char *file;
	void (*fn)(void);
	struct test_case *next;
};

void test_register(struct test_case *tc);
/* Record a failed check; the test goes on and is counted as failed. */
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Mark the running test skipped (hardware or privilege missing) and say why. */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Directory of tests/data in the source tree. */
const char *test_data_dir(void);
/* Path under tests/data; static buffer valid until the next call. */
const char *test_data(const char *rel);

#define TEST(name)                                                          \
	static void test_##name(void);                                      \
	static struct test_case tc_##name = { #name, __FILE__, test_##name, NULL }; \
	__attribute__((constructor)) static void reg_##name(void)          \
	{ test_register(&tc_##name); }                                      \
	static void test_##name(void)

/* Checks with an explicit line, for table rows that carry their own line. */
#define CHECK_AT(line, cond, ...)                                           \
	do { if (!(cond)) test_fail(__FILE__, (line), __VA_ARGS__); } while (0)

#define CHECK(cond) CHECK_AT(__LINE__, cond, "check failed: %s", #cond)

#define CHECK_INT_AT(line, a, b) do {                                       \
	long long a_ = (long long)(a), b_ = (long long)(b);                 \
	if (a_ != b_) test_fail(__FILE__, (line), "%s == %lld, expected %lld", #a, a_, b_); \
} while (0)
#define CHECK_INT(a, b) CHECK_INT_AT(__LINE__, a, b)

#define CHECK_U64_AT(line, a, b) do {                                       \
	unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
	if (a_ != b_) test_fail(__FILE__, (line), "%s == 0x%llx, expected 0x%llx", #a, a_, b_); \
} while (0)
#define CHECK_U64(a, b) CHECK_U64_AT(__LINE__, a, b)

#define CHECK_STR_AT(line, a, b) do {                                       \
	const char *a_ = (a), *b_ = (b);                                    \
	if (!a_ || !b_ || strcmp(a_, b_))                                   \
		test_fail(__FILE__, (line), "%s == \"%s\", expected \"%s\"", #a, \
			  a_ ? a_ : "(null)", b_ ? b_ : "(null)");          \
} while (0)
#define CHECK_STR(a, b) CHECK_STR_AT(__LINE__, a, b)

#define CHECK_CONTAINS(hay, needle) do {                                    \
	const char *h_ = (hay), *n_ = (needle);                             \
	if (!h_ || !strstr(h_, n_))                                         \
		test_fail(__FILE__, __LINE__, "%s does not contain \"%s\": \"%s\"", #hay, n_, \
			  h_ ? h_ : "(null)");                              \
} while (0)

/* |a - b| <= tol; a NaN on either side fails unless both are NaN. */
#define CHECK_NEAR_AT(line, a, b, tol) do {                                 \
	double a_ = (a), b_ = (b);                                          \
	if (!((isnan(a_) && isnan(b_)) || fabs(a_ - b_) <= (tol)))          \
		test_fail(__FILE__, (line), "%s == %.17g, expected %.17g (tolerance %g)", \
			  #a, a_, b_, (double)(tol));                       \
} while (0)
#define CHECK_NEAR(a, b, tol) CHECK_NEAR_AT(__LINE__, a, b, tol)

#define CHECK_NAN(a) CHECK_AT(__LINE__, isnan(a), "%s is %g, expected NaN", #a, (double)(a))

#define SKIP(...) do { test_skip(__VA_ARGS__); return; } while (0)

#endif
