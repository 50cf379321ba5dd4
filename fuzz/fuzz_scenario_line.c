/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_scenario_line.c -- one line of a scenario file (SCENARIOS.md) through
 * the scenario runner's parser and expectation checker
 * (tools/agentmem/scenario_parse.c, included here: the fuzz build cannot
 * link tools/ sources).  The observation the expectations are judged
 * against is made from the input itself, so matching, normalisation,
 * flattening and the "expected ... / got ..." texts all see hostile data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/agentmem/scenario_parse.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    sc_step st;
    int kind = sc_parse_line((const char *)data, size, &st);

    /* An observation made of the input: every text is the input (up to its
     * first NUL), its flattened JSON, or a piece of it. */
    sc_buf flat = {0};
    sc_json_text_flatten(text, &flat);
    const char *items[3] = {text, sc_buf_str(&flat), text + size / 2};
    sc_obs o;
    sc_obs_init(&o);
    o.memories = items;
    o.n_memories = 3;
    o.events = items + 1;
    o.n_events = 2;
    o.block = text;
    o.need_memory = (int)(size & 1);
    o.task_text = size & 2 ? text : NULL;
    o.status = items[2];
    o.stage = size & 4 ? text : NULL;
    o.count_active = (long)(size % 7) - 1;
    o.export_raw = text;
    o.export_flat = sc_buf_str(&flat);

    if (kind == SC_LINE_STEP && st.expect) {
        const char *key;
        json_t *v;
        json_object_foreach(st.expect, key, v) {
            for (int k = 0; k < SC_NKINDS; k++) {
                sc_buf d = {0};
                (void)sc_check((sc_kind)k, key, v, &o, &d);
                (void)sc_step_key_bad(&st, key);
                sc_buf_free(&d);
            }
        }
    }
    for (size_t i = 0; i < st.n_issues; i++) {
        sc_buf d = {0};
        sc_buf_quote(&d, st.issues[i].detail, 40);
        sc_buf_clean(&d, st.issues[i].check, 0);
        sc_buf_free(&d);
    }
    (void)sc_has_zone(text);
    (void)sc_has_zone(st.at);
    (void)sc_text_contains(text, st.text ? st.text : "a");
    sc_buf q = {0};
    sc_buf_quote(&q, text, size / 3);
    sc_buf_free(&q);

    sc_buf_free(&flat);
    sc_step_free(&st);
    free(text);
    return 0;
}
