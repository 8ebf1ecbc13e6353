/* dirs.h - where a user's files are: the directories a front end reads from its environment */
#ifndef VP_DIRS_H
#define VP_DIRS_H

/*
 * The values a front end reads once from its environment and hands down,
 * so no library module reads the environment itself: $XDG_CONFIG_HOME,
 * $HOME and the directory of the running binary (each NULL or "" when
 * unknown).  The strings stay the caller's.
 */
struct vp_dirs {
	const char *xdg_config_home;
	const char *home;
	const char *exe_dir;
};

/*
 * vmmprof's configuration directory: "$XDG_CONFIG_HOME/vmmprof", else
 * "$HOME/.config/vmmprof"; NULL when d is NULL or neither is set.  free() it.
 */
char *vp_config_dir(const struct vp_dirs *d);

#endif
