/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mcp_stdio.c -- `agentmem mcp`: the MCP stdio transport over the
 * transport-agnostic core (tools/mcp/mcp.h).  One JSON-RPC message a line
 * on stdin, one reply a line on stdout, nothing else on stdout (logs go to
 * stderr), exit 0 at end of input (MCP 2025-11-25 basic/transports
 * "stdio", 2026-07-28 basic/transports/stdio).  A line is read whole up to
 * AM_MCP_MAX_MESSAGE bytes; a longer one is read to its end and refused,
 * so memory stays bounded whatever arrives.  Replies come from jansson's
 * compact dump, which escapes every line break inside strings: a stored
 * text cannot split a reply into two lines.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcp.h"

/* Read one line (without its \n, and a \r before it) into *buf.  Returns
 * its length (AM_MCP_MAX_MESSAGE + 1 when longer: the rest is skipped), or
 * -1 at end of input with nothing read, -2 out of memory. */
static long read_line(char **buf, size_t *cap, FILE *in)
{
    size_t n = 0;
    int c, any = 0;
    while ((c = getc(in)) != EOF && c != '\n') {
        any = 1;
        if (n > AM_MCP_MAX_MESSAGE) continue; /* too long: skip to the end */
        if (n + 1 >= *cap) {
            size_t ncap = *cap ? *cap * 2 : 4096;
            if (ncap > AM_MCP_MAX_MESSAGE + 2) ncap = AM_MCP_MAX_MESSAGE + 2;
            char *nb = realloc(*buf, ncap);
            if (!nb) return -2;
            *buf = nb;
            *cap = ncap;
        }
        (*buf)[n++] = (char)c;
    }
    if (!any && c == EOF) return -1;
    if (n > 0 && n <= AM_MCP_MAX_MESSAGE && (*buf)[n - 1] == '\r') n--;
    return (long)n;
}

/* Refuse a bad --user before serving rather than on every call: a
 * read-only recall checks the id as every tool will (an --agent the
 * library refuses shows in remember's isError).  0, or 2 (usage error,
 * message printed). */
static int check_ids(am_db *db, const char *user, const char *agent, const char *role)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.agent_id = agent;
    q.role = role;
    q.text = "check";
    q.no_touch = 1;
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    am_recall_free(r);
    if (rc != AM_INVALID) return 0;
    fprintf(stderr, "agentmem mcp: %s\n", am_errmsg(db));
    return 2;
}

int am_cli_mcp(am_db *db, const char *user, const char *agent, const char *role)
{
    if (check_ids(db, user, agent, role)) return 2;
    /* --agent and --role: every tool sees and acts as that agent with that
     * role may, as a server token of the same agent and role does */
    am_mcp *m = am_mcp_new_as(db, user, agent, role);
    if (!m) {
        fprintf(stderr, "agentmem mcp: --user, --agent and --role are ids of at most %d bytes\n",
                AM_ID_MAX);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a closed stdout is a write error, not a kill */
    fprintf(stderr,
            "agentmem mcp: serving user %s on stdin/stdout (MCP %s, and %s back to "
            "2024-11-05 after initialize)\n",
            user, AM_MCP_MODERN_VERSION, AM_MCP_LEGACY_VERSION);
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    long n;
    while ((n = read_line(&buf, &cap, stdin)) >= 0) {
        if (n == 0) continue; /* a blank line carries no message */
        char *reply;
        if (am_mcp_handle(m, buf, (size_t)n, &reply) != AM_OK) {
            fprintf(stderr, "agentmem mcp: out of memory handling a message\n");
            rc = 1;
            break;
        }
        if (!reply) continue;
        int bad = fputs(reply, stdout) < 0 || putchar('\n') == EOF || fflush(stdout) != 0;
        am_mcp_reply_free(reply);
        if (bad) {
            fprintf(stderr, "agentmem mcp: cannot write to stdout (the client went away)\n");
            rc = 1;
            break;
        }
    }
    if (n == -2) {
        fprintf(stderr, "agentmem mcp: out of memory reading a message\n");
        rc = 1;
    } else if (n == -1 && ferror(stdin)) {
        fprintf(stderr, "agentmem mcp: cannot read stdin\n");
        rc = 1;
    }
    free(buf);
    am_mcp_free(m);
    return rc;
}
