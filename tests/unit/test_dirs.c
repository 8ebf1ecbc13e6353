/* test_dirs.c - the model path and the default calibration from the directories a front end gives */
#include "test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calib/file.h"
#include "model/dirs.h"
#include "util/dirs.h"

TEST(config_dir_prefers_xdg_then_home)
{
	struct vp_dirs both = { "/x/conf", "/home/u", NULL }, home = { "", "/home/u", NULL };
	struct vp_dirs none = { NULL, "", NULL };
	char *s;

	s = vp_config_dir(&both);
	CHECK_STR(s, "/x/conf/vmmprof");
	free(s);
	s = vp_config_dir(&home);
	CHECK_STR(s, "/home/u/.config/vmmprof");
	free(s);
	CHECK(vp_config_dir(&none) == NULL);
	CHECK(vp_config_dir(NULL) == NULL);
	/* the calibration file is in the same directory; none without one */
	s = calib_default_path(&home, false);
	CHECK_STR(s, "/home/u/.config/vmmprof/calibration.json");
	free(s);
	CHECK(calib_default_path(&none, false) == NULL);
}

TEST(model_dirs_from_paths_and_given_dirs_only)
{
	char tmp[] = "/tmp/vp-dirs.XXXXXX", bin[PATH_MAX], models[PATH_MAX], *real;
	char *paths[] = { "/a:/b::/a", "/c" };
	struct vp_dirs d = { NULL, "/home/u", bin };
	struct model_dirs md;

	CHECK(mkdtemp(tmp) != NULL);
	snprintf(bin, sizeof(bin), "%s/build", tmp);
	snprintf(models, sizeof(models), "%s/models", tmp);
	CHECK(mkdir(bin, 0755) == 0);
	CHECK(mkdir(models, 0755) == 0);
	real = realpath(models, NULL);
	CHECK(real != NULL);
	/* --model-path split at ':' without repeats, then $HOME's, then the tree's
	 * models/ next to the binary (../share/vmmprof/models does not exist) */
	model_dirs_build(&md, paths, 2, &d);
	CHECK_INT((int)md.n, 5);
	if (md.n == 5) {
		CHECK_STR(md.v[0], "/a");
		CHECK_STR(md.v[1], "/b");
		CHECK_STR(md.v[2], "/c");
		CHECK_STR(md.v[3], "/home/u/.config/vmmprof/models");
		CHECK_STR(md.v[4], real);
	}
	model_dirs_release(&md);
	/* nothing from this process's environment when the front end gives none */
	model_dirs_build(&md, NULL, 0, NULL);
	CHECK_INT((int)md.n, 0);
	model_dirs_release(&md);
	rmdir(bin);
	rmdir(models);
	rmdir(tmp);
	free(real);
}
