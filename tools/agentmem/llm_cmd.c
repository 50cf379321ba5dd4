/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_cmd.c -- the optional LLM pass in the CLI (docs/LLM.md): the
 * environment it is configured by, and `agentmem distill --llm`.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "cli.h"
#include "plural.h"

/* The first line of path into key (cap bytes); 0 or 1 (said why). */
static int key_from_file(const char *path, char *key, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "agentmem: AGENTMEM_LLM_KEY_FILE: cannot read %s\n", path);
        return 1;
    }
    int ok = fgets(key, (int)cap, f) != NULL;
    fclose(f);
    if (!ok) key[0] = '\0';
    key[strcspn(key, "\r\n")] = '\0';
    return 0;
}

int am_cli_llm_config(am_config *cfg, char *key, size_t cap)
{
    const char *spec = getenv("AGENTMEM_LLM");
    if (!spec || !*spec || strcmp(spec, "none") == 0) return 0;
    if (strncmp(spec, "openai:", 7) != 0 || !strchr(spec + 7, '@') || spec[7] == '@' ||
        !strchr(spec + 7, '@')[1]) {
        fprintf(stderr, "agentmem: AGENTMEM_LLM: \"%.100s\" is not openai:MODEL@BASE_URL"
                        " (e.g. openai:qwen2.5@http://127.0.0.1:8080/v1) or none\n", spec);
        return 1;
    }
    cfg->llm = spec;
    const char *file = getenv("AGENTMEM_LLM_KEY_FILE");
    key[0] = '\0';
    if (file && *file) {
        if (key_from_file(file, key, cap)) return 1;
        cfg->llm_key = key;
    } else {
        cfg->llm_key = getenv("AGENTMEM_LLM_KEY");
    }
    const char *b = getenv("AGENTMEM_LLM_BUDGET"); /* CALLS[/TOKENS] a user a day */
    if (b && *b) {
        char *end;
        long calls = strtol(b, &end, 10), tokens = -1;
        if (*end == '/') tokens = strtol(end + 1, &end, 10);
        if (end == b || *end || calls < 0 || (tokens < -1) ||
            am_config_set(cfg, "llm_calls_per_day", (double)calls) ||
            (tokens >= 0 && am_config_set(cfg, "llm_tokens_per_day", (double)tokens))) {
            fprintf(stderr, "agentmem: AGENTMEM_LLM_BUDGET: \"%.40s\" is not CALLS[/TOKENS]"
                            " (requests and tokens a user a day; 0: no limit)\n", b);
            return 1;
        }
    }
    return 0;
}

int am_cli_distill(am_db *db, const char *user, const char *since, int llm, int json)
{
    if (!llm) {
        fprintf(stderr, "agentmem distill: only --llm is supported (the rules run on every write)\n");
        return 2;
    }
    if (!user) {
        fprintf(stderr, "agentmem distill: --user is required\n");
        return 2;
    }
    am_llm_pass_opts o;
    memset(&o, 0, sizeof o);
    o.user_id = user;
    o.since = since;
    const char *t = getenv("AGENTMEM_LLM_TIMEOUT_MS"); /* one request; default 30000 */
    if (t && *t) {
        char *end;
        o.timeout_ms = strtol(t, &end, 10);
        if (end == t || *end || o.timeout_ms < 1 || o.timeout_ms > 3600000) {
            fprintf(stderr, "agentmem: AGENTMEM_LLM_TIMEOUT_MS: \"%.20s\" is not 1 to 3600000\n", t);
            return 2;
        }
    }
    am_llm_report r;
    int rc = am_llm_pass(db, &o, &r);
    if (json) {
        json_t *j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:b}", "events",
                              (json_int_t)r.events, "calls", (json_int_t)r.calls, "retries",
                              (json_int_t)r.retries, "tokens", (json_int_t)r.tokens, "proposed",
                              (json_int_t)r.proposed, "created", (json_int_t)r.created, "merged",
                              (json_int_t)r.merged, "one_off", (json_int_t)r.one_off, "dropped",
                              (json_int_t)r.dropped, "budget_exhausted", r.budget_exhausted,
                              "refused", r.refused);
        if (j && rc) {
            json_object_set_new(j, "error", json_string(am_errmsg(db)));
            json_object_set_new(j, "code", json_string(am_errstr(rc)));
        }
        am_cli_json_print(j);
    } else {
        printf("llm pass: %ld %s sent, %ld %s (%ld %s), %ld %s; %ld proposed:"
               " %ld created, %ld merged, %ld one-off, %ld dropped%s%s\n",
               r.events, am_plural(r.events, "event", "events"), r.calls,
               am_plural(r.calls, "call", "calls"), r.retries, am_plural(r.retries, "retry", "retries"),
               r.tokens, am_plural(r.tokens, "token", "tokens"), r.proposed, r.created, r.merged, r.one_off,
               r.dropped, r.budget_exhausted ? "; budget exhausted" : "",
               r.refused ? "; the model refused" : "");
    }
    if (rc) {
        fprintf(stderr, "agentmem: %s (%s)\n", am_errmsg(db), am_errstr(rc));
        return 1;
    }
    return 0;
}
