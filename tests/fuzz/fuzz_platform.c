/* fuzz_platform.c - libFuzzer harness for the platform probe's file parsers */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/registry.h"
#include "plan/coverage.h"
#include "platform/platform.h"
#include "util/alloc.h"

/*
 * The input is split at 0x01 bytes into the contents of these files of a
 * fixture root (missing parts leave the file absent); the probe and the
 * coverage decision then run over that root.  Nothing may crash, leak or
 * read out of bounds, whatever the files hold.
 */
static const char *const files[] = {
	"/proc/cpuinfo",
	"/sys/devices/system/cpu/online",
	"/sys/devices/system/node/node0/distance",
	"/sys/devices/system/node/node0/cpulist",
	"/sys/devices/system/node/node0/meminfo",
	"/sys/devices/system/node/node1/distance",
	"/proc/self/status",
	"/proc/self/mountinfo",
	"/sys/fs/resctrl/info/L3_MON/mon_features",
	"/sys/devices/system/cpu/cpu0/cache/index0/size",
	"/sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_list",
	"/sys/bus/event_source/devices/uncore_imc_0/cpumask",
	"/var/log/kern.log",
	"/.vmmprof-fixture/cpuid-hypervisor",
	"/proc/1/cmdline",
	"/sys/devices/system/cpu/cpu0/topology/core_id",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static char root[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove the scratch root when the fuzzer exits. */
static void cleanup(void)
{
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct platform p;
	struct coverage cv;
	size_t i, start = 0, part = 0;

	if (!root[0]) {
		snprintf(root, sizeof(root), "/tmp/vp-fuzz-platform-XXXXXX");
		if (!mkdtemp(root))
			abort();
		atexit(cleanup);
	}
	for (i = 0; i < NFILES; i++) {
		char *path = xasprintf("%s%s", root, files[i]);

		unlink(path);
		free(path);
	}
	for (i = 0; i <= size && part < NFILES; i++) {
		if (i < size && data[i] != 0x01)
			continue;
		{
			char *path = xasprintf("%s%s", root, files[part]);
			int fd;

			mkdirs(path);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0) {
				if (i > start && write(fd, data + start, i - start) < 0)
					abort();
				close(fd);
			}
			free(path);
		}
		part++;
		start = i + 1;
	}
	if (platform_probe(&p, root, NULL) == 0) {
		/* the built-in models (the tier runs from the source tree), loaded once */
		static struct model_registry reg;
		static int have_reg;

		if (!have_reg) {
			const char *dirs[1] = { "models" };

			setenv("LIBPFM_ENCODE_INACTIVE", "1", 1); /* a fixture root, as model check --root */
			model_registry_init(&reg, dirs, 1);
			have_reg = 1;
		}
		coverage_compute(&p, &reg, &cv);
		coverage_release(&cv);
		platform_release(&p);
	}
	return 0;
}
