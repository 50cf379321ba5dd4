/*
 * cli.h -- shared pieces of the agentmem command-line tool.  The CLI uses only
 * the public header include/agentmem.h (and jansson for JSON in and out).
 * Each subcommand lives in its own file as `int am_cli_<name>(int argc,
 * char **argv)` where argv[0] is the subcommand name; it returns the process
 * exit code (0 ok, 1 failure, 2 usage error).
 */
#ifndef AM_CLI_H
#define AM_CLI_H
#include "agentmem.h"

int am_cli_scenario(int argc, char **argv); /* scenario.c */
int am_cli_knobs(int argc, char **argv);    /* knobs.c */

#endif
