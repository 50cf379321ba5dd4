/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_cli.h -- the one entry point of the benchmark harness (tools/bench/)
 * for the agentmem command-line tool.  The harness is a library of its own
 * (CMake target agentmem_bench) that the CLI links: the CLI's sources hold
 * no benchmark code, and the harness knows nothing of the CLI but this
 * calling convention.  bench.h is the harness's internal header.
 */
#ifndef AM_BENCH_CLI_H
#define AM_BENCH_CLI_H

/* `agentmem bench DATASET [options]`; argv[0] is "bench"; quiet: the
 * CLI's --quiet given before the command (no progress bar).  Returns the
 * process exit code: 0 ok, 1 failure, 2 usage error. */
int am_cli_bench(int argc, char **argv, int quiet);

/* `agentmem bench serve ...` (load.c): a loopback load of a running
 * server over HTTP; argv[0] is "serve".  Returns the exit code (0, 1
 * errors, 2 usage). */
int am_cli_bench_serve(int argc, char **argv);

#endif
