/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_add_event.c -- the whole write path and a recall through the public
 * API with arbitrary text, ids and times: the engine accepts or refuses
 * with an error message, never crashes, and a refused event leaves no row.
 * Input layout: text \0 session \0 occurred_at \0 query.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"

static am_time fixed_clock(void *ctx)
{
    (void)ctx;
    return 1772000000000LL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static am_db *db;
    if (!db) {
        am_config cfg;
        am_config_init(&cfg);
        cfg.path = ":memory:";
        cfg.clock = fixed_clock;
        if (am_open(&cfg, &db, NULL) != AM_OK) return 0;
    }
    char *buf = malloc(size + 4);
    if (!buf) return 0;
    memcpy(buf, data, size);
    memset(buf + size, 0, 4);
    const char *parts[4];
    size_t p = 0;
    for (int i = 0; i < 4; i++) {
        parts[i] = buf + p;
        p += strlen(buf + p) + 1;
        if (p > size) p = size;
    }
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "fuzz";
    ev.text = parts[0];
    ev.session_id = parts[1][0] ? parts[1] : NULL;
    ev.occurred_at = parts[2][0] ? parts[2] : NULL;
    am_add_info info;
    int rc = am_add_event(db, &ev, &info);
    if (rc != AM_OK && !am_errmsg(db)[0]) abort();
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "fuzz";
    q.text = parts[3][0] ? parts[3] : parts[0];
    am_recall_result *r;
    if (am_recall(db, &q, &r) == AM_OK) {
        if (!r->json || !r->block) abort();
        am_recall_free(r);
    }
    free(buf);
    return 0;
}
