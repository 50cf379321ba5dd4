/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_render.c -- the memory block (recall/render.c) from arbitrary
 * stored values: the input, cut at 0x1E bytes, gives an item text, the
 * value it conflicts with, an event's content, a task name and stage, and
 * the task's notes, artifacts and pending lists (JSON, read by the
 * renderer -- a stored value is input too) and a workspace entry made of
 * them, and a pack's rule of the item's text.  Whatever they hold, the block
 * has only the renderer's own lines: a section title of the block's
 * language or an entry "- ...", no control character but the line ends,
 * and each title at most once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recall/recall.h"
#include "text/lexicon/lexicon.h"

#define PARTS 8

static void check_block(const char *b, const am__lex_labels *L)
{
    const char *titles[5] = {L->memory, L->task, L->events, L->workspace, L->rules};
    int seen[5] = {0, 0, 0, 0, 0};
    for (const char *p = b; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int ok = n >= 2 && p[0] == '-' && p[1] == ' ';
        for (int t = 0; t < 5 && !ok; t++) {
            size_t m = strlen(titles[t]);
            if (n >= m && memcmp(p, titles[t], m) == 0) {
                if (seen[t]++) abort(); /* a title twice */
                ok = 1;
            }
        }
        if (!ok) abort(); /* a line the renderer did not open */
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)p[i];
            if (c < 0x20 || c == 0x7F) abort();
            if (c == 0xC2 && i + 1 < n && (unsigned char)p[i + 1] >= 0x80 &&
                (unsigned char)p[i + 1] <= 0x9F)
                abort(); /* C1 */
            if (c == 0xE2 && i + 2 < n && (unsigned char)p[i + 1] == 0x80 &&
                ((unsigned char)p[i + 2] == 0xA8 || (unsigned char)p[i + 2] == 0xA9))
                abort(); /* U+2028/2029 */
        }
        p += n + (e ? 1 : 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192) return 0;
    char *in = malloc(size + 1);
    if (!in) return 0;
    memcpy(in, data, size);
    in[size] = 0;
    const char *part[PARTS];
    size_t np = 0;
    char *p = in;
    part[np++] = p;
    for (size_t i = 0; i < size && np < PARTS; i++)
        if (in[i] == 0x1E) {
            in[i] = 0;
            part[np++] = in + i + 1;
        }
    while (np < PARTS) part[np++] = "";
    am__item_row item;
    memset(&item, 0, sizeof item);
    item.kind = "constraint";
    item.text = part[0];
    item.status = size & 1 ? "pending_confirm" : "active";
    am__scored_item si = {&item, 0, 0, 0, size & 2 ? part[1] : NULL};
    am__item_row rule = item; /* a pack's rule of the same text */
    rule.kind = "rule";
    am__event_row ev;
    memset(&ev, 0, sizeof ev);
    ev.content = part[2];
    ev.occurred_at = 1741161600000LL;
    am__task_row task = {"t1", part[3], part[4], "active", part[5], part[6], part[7], 0, 0,
                         1, 0, 0, 0, NULL, "[]"};
    am__workspace_row ws = {part[1], part[2], part[3], part[4], 1, 0};
    for (int lang = 0; lang < 2; lang++) {
        am__render_in ri = {lang ? AM_LANG_ZH : AM_LANG_EN, &si, 1, &ev, 1, &task, 4000, 4000,
                            &ws, 1, part[0], (int)(size & 4), &rule, size & 8 ? 1 : 0};
        am__buf out;
        am__buf_init(&out, NULL);
        size_t items, events;
        if (am__render_block(&ri, &out, &items, &events) == AM_OK && out.p)
            check_block(out.p, lang ? &am__lex_labels_zh : &am__lex_labels_en);
        am__buf_free(&out);
    }
    free(in);
    return 0;
}
