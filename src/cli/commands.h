/* commands.h - every subcommand's table entry (one cmd_*.c each) */
#ifndef VP_COMMANDS_H
#define VP_COMMANDS_H

#include "cli/cli.h"

extern const struct cmd cmd_diagnose;
extern const struct cmd cmd_help;
extern const struct cmd cmd_info;
extern const struct cmd cmd_list;
extern const struct cmd cmd_model;
extern const struct cmd cmd_record;
extern const struct cmd cmd_report;
extern const struct cmd cmd_compare;
extern const struct cmd cmd_verify;
extern const struct cmd cmd_stat;
extern const struct cmd cmd_bench;
extern const struct cmd cmd_calibrate;
extern const struct cmd cmd_probe;

/* Options every benchmark command takes (cmd_bench.c): --time, --quick,
 * --no-huge, --isa, --seed, --size, as getopt codes 't', 'Q', 'H', 'I', 'S', 'Z'. */
struct bench_opts;
int bench_cli_opt(const struct cmd *c, int opt, const char *arg, struct bench_opts *o,
		  bool *time_set);

extern const struct cmd cmd_top;
extern const struct cmd cmd_serve;
extern const struct cmd cmd_user;

#endif
