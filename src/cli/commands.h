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
extern const struct cmd cmd_stat;

#endif
