/* main.c - runs every registered unit test and prints "N passed, N failed" */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>

static struct test_case *head, **tail = &head;
static int cur_failed, cur_skipped;
static char data_dir[4096];
static char data_buf[8192];

void test_register(struct test_case *tc)
{
	*tail = tc;
	tail = &tc->next;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	cur_failed++;
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "    skipped: ");
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	cur_skipped = 1;
}

const char *test_data_dir(void)
{
	return data_dir;
}

const char *test_data(const char *rel)
{
	snprintf(data_buf, sizeof(data_buf), "%s/%s", data_dir, rel);
	return data_buf;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	const char *filter = argc > 1 ? argv[1] : NULL;
	const char *dd = getenv("VP_TEST_DATA");
	struct test_case *tc;

	snprintf(data_dir, sizeof(data_dir), "%s", dd ? dd : "tests/data");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (tc = head; tc; tc = tc->next) {
		if (filter && !strstr(tc->name, filter) && !strstr(tc->file, filter))
			continue;
		cur_failed = 0;
		cur_skipped = 0;
		tc->fn();
		if (cur_failed) {
			failed++;
			printf("FAIL %s (%s)\n", tc->name, tc->file);
		} else if (cur_skipped) {
			skipped++;
			printf("SKIP %s\n", tc->name);
		} else {
			passed++;
			printf("ok   %s\n", tc->name);
		}
	}
	printf("unit: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
