/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve_cmd.c -- serve (the HTTP server of tools/server, its flags checked
 * into am_server_opts) and mcp (MCP over stdio, mcp_stdio.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "server.h"

int am_cli_cmd_mcp(am_db *db, const am_cli_opts *o)
{
    if (!o->user) return am_cli_usage_error("mcp", "--user is required");
    return am_cli_mcp(db, o->user, o->agent, o->role);
}

/* serve: the HTTP server (tools/server) on handles opened like this one */
int am_cli_cmd_serve(am_db *db, const am_cli_opts *o)
{
    am_server_opts so;
    am_server_opts_init(&so);
    if (o->listen) so.listen = o->listen;
    const struct {
        const char *flag, *v;
        long max;
        long *out;
    } nums[] = {{"--threads", o->threads, 64, &so.threads},
                {"--max-body", o->max_body, 1L << 30, &so.max_body},
                {"--max-conns-per-ip", o->max_conns_per_ip, 1024, &so.max_conns_per_ip},
                {"--header-timeout", o->header_timeout, 3600, &so.header_timeout_s},
                {"--timeout", o->timeout, 3600, &so.timeout_s},
                {"--llm-batch", o->llm_batch, 200, &so.llm_batch},
                {"--llm-wait", o->llm_wait, 86400, &so.llm_wait_s},
                {"--llm-queue", o->llm_queue, 1000000, &so.llm_queue}};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        if (!nums[i].v) continue;
        char *end;
        long v = strtol(nums[i].v, &end, 10);
        if (end == nums[i].v || *end || v < 1 || v > nums[i].max) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s: expected a number from 1 to %ld", nums[i].flag,
                     nums[i].max);
            return am_cli_usage_error("serve", msg);
        }
        *nums[i].out = v;
    }
    so.db_path = o->db;
    if ((o->llm_batch || o->llm_wait || o->llm_queue) && !o->cfg->llm)
        return am_cli_usage_error("serve", "--llm-batch, --llm-wait and --llm-queue need AGENTMEM_LLM"
                                    " (docs/LLM.md)");
    const char *t = getenv("AGENTMEM_LLM_TIMEOUT_MS"); /* one request; default 30000 */
    if (o->cfg->llm && t && *t) {
        char *end;
        so.llm_timeout_ms = strtol(t, &end, 10);
        if (end == t || *end || so.llm_timeout_ms < 1 || so.llm_timeout_ms > 3600000) {
            fprintf(stderr, "agentmem: AGENTMEM_LLM_TIMEOUT_MS: \"%.20s\" is not 1 to 3600000\n", t);
            return 2;
        }
    }
    /* webhooks: the URLs joined by commas, the secret from its file (the
     * first line; never on the command line, where ps shows it) */
    char urls[16 * 2048], secret[1024];
    size_t used = 0;
    for (int i = 0; i < o->n_webhook; i++) {
        size_t n = strlen(o->webhook[i]);
        if (n == 0 || n >= 2048 || strpbrk(o->webhook[i], ", \t\r\n"))
            return am_cli_usage_error("serve", "--webhook: a URL of 1 to 2047 bytes without blanks or commas");
        memcpy(urls + used, o->webhook[i], n);
        used += n;
        urls[used++] = i + 1 < o->n_webhook ? ',' : '\0';
    }
    if (!o->n_webhook != !o->webhook_secret_file)
        return am_cli_usage_error("serve", "--webhook and --webhook-secret-file go together");
    if (o->n_webhook) {
        FILE *f = fopen(o->webhook_secret_file, "r");
        int ok = f && fgets(secret, sizeof secret, f);
        if (f) fclose(f);
        secret[ok ? strcspn(secret, "\r\n") : 0] = '\0';
        if (!secret[0]) {
            fprintf(stderr, "agentmem serve: --webhook-secret-file %s: cannot read a secret"
                            " (its first line)\n", o->webhook_secret_file);
            return 2;
        }
        so.webhooks = urls;
        so.webhook_secret = secret;
    }
    so.cache_url = o->cache;
    so.obs = o->obs;
    if (o->maintain_every) {
        /* DURATION: a number and a unit (s, m, h, d); 0: off */
        char *end;
        double v = strtod(o->maintain_every, &end);
        double unit = strcmp(end, "s") == 0 ? 1e3 : strcmp(end, "m") == 0 ? 6e4
                      : strcmp(end, "h") == 0 ? 3.6e6 : strcmp(end, "d") == 0 ? 8.64e7
                      : strcmp(o->maintain_every, "0") == 0 ? 1 : -1;
        if (end == o->maintain_every || unit < 0 || !(v >= 0) || v * unit > 30 * 8.64e7 ||
            (v > 0 && v * unit < 1000))
            return am_cli_usage_error("serve", "--maintain-every: a duration from 1s to 30d (10m, 1h, "
                                        "30s, 1d), or 0: off");
        so.maintain_every_ms = (long)(v * unit);
    }
    so.reuse_port = o->reuse_port;
    so.mcp_origins = o->mcp_origin;
    so.n_mcp_origins = (size_t)o->n_mcp_origin;
    int rc = am_server_run(db, o->cfg, &so);
    memset(secret, 0, sizeof secret);
    return rc;
}
