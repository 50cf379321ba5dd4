/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval_engine.c -- the engine's part of `agentmem eval understand`: every
 * turn of the split through the whole write path (am_add_event, a fresh
 * user each, an in-memory store), then what it kept (am_memories): kept
 * recall and precision against the labels, the must-not-keep turns not
 * kept, recall by the labelled kind, the stored kinds against the
 * labelled ones, how many items a turn with two memories gave, and which
 * part decided what was kept -- the rules or the model (the item's
 * value "source").  On the public header and jansson only.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "eval_engine.h"

static const char *const KINDS[] = {"preference", "constraint", "profile", "habit", "norm"};
#define N_KINDS 5

typedef struct lang_tally {
    long n, gold_keep, kept, kept_right, must_not, must_not_kept;
    long by_kind[N_KINDS], by_kind_kept[N_KINDS];
    long kind_n, kind_ok; /* stored kind as the labelled one (habit: preference, norm: constraint) */
    long multi, multi_split; /* turns with two or more memories; of them kept as two or more items */
    long by_rules, by_model; /* kept turns whose items came from the rules / the model */
} lang_tally;

struct am_eval_engine {
    am_db *db;
    int misses; /* print each turn the engine got wrong */
    long seq;
    lang_tally t[3];
};

static int keeps(const char *act) { return strcmp(act, "lasting") == 0 || strcmp(act, "correction") == 0; }
static int must_not_keep(const char *act)
{
    static const char *const no[] = {"fact", "oneoff", "question", "smalltalk", "hypothetical",
                                     "reported", "complaint", NULL};
    for (int i = 0; no[i]; i++)
        if (strcmp(no[i], act) == 0) return 1;
    return 0;
}
static int kind_index(const char *k)
{
    for (int i = 0; k && i < N_KINDS; i++)
        if (strcmp(KINDS[i], k) == 0) return i;
    return -1;
}
static const char *stored_kind(const char *k)
{
    if (strcmp(k, "habit") == 0) return "preference";
    if (strcmp(k, "norm") == 0) return "constraint";
    return k;
}
static double ratio(long a, long b) { return b ? (double)a / (double)b : 0; }

am_eval_engine *am_eval_engine_new(int misses)
{
    am_eval_engine *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->misses = misses;
    am_config cfg;
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    cfg.path = ":memory:";
    char *err = NULL;
    if (am_open(&cfg, &e->db, &err) != AM_OK) {
        fprintf(stderr, "agentmem eval understand: the engine: %s\n", err ? err : "cannot open");
        am_free(err);
        free(e);
        return NULL;
    }
    return e;
}

void am_eval_engine_free(am_eval_engine *e)
{
    if (!e) return;
    am_close(e->db);
    free(e);
}

static void tally_turn(lang_tally *t, json_t *d, const am_memory_list *l)
{
    const char *act = json_string_value(json_object_get(d, "act"));
    json_t *mems = json_object_get(d, "memories");
    size_t active = 0;
    int from_model = 0, hit_kind = 0;
    for (size_t i = 0; i < l->n; i++) {
        const am_memory *m = &l->items[i];
        if (strcmp(m->status, "active") != 0) continue;
        active++;
        if (m->value_json && strstr(m->value_json, "\"source\":\"model\"")) from_model = 1;
        for (size_t k = 0; k < json_array_size(mems); k++) {
            const char *gk = json_string_value(json_object_get(json_array_get(mems, k), "kind"));
            if (gk && strcmp(stored_kind(gk), m->kind) == 0) hit_kind = 1;
        }
    }
    int kept = active > 0, gold = keeps(act);
    t->n++;
    t->gold_keep += gold;
    t->kept += kept;
    t->kept_right += kept && gold;
    if (must_not_keep(act)) {
        t->must_not++;
        t->must_not_kept += kept;
    }
    if (kept) {
        if (from_model) t->by_model++;
        else t->by_rules++;
    }
    if (gold && json_array_size(mems)) {
        int k0 = kind_index(json_string_value(json_object_get(json_array_get(mems, 0), "kind")));
        if (k0 >= 0) {
            t->by_kind[k0]++;
            t->by_kind_kept[k0] += kept;
        }
        if (kept) {
            t->kind_n++;
            t->kind_ok += hit_kind;
        }
        if (json_array_size(mems) >= 2) {
            t->multi++;
            t->multi_split += active >= 2;
        }
    }
}

int am_eval_engine_turn(am_eval_engine *e, json_t *d, int lang)
{
    const char *text = json_string_value(json_object_get(d, "text"));
    char user[48];
    snprintf(user, sizeof user, "eval-%ld", ++e->seq);
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = user;
    ev.session_id = "s";
    ev.text = text;
    ev.occurred_at = "2026-03-02T09:00:00+08:00";
    am_add_info info;
    int rc = am_add_event(e->db, &ev, &info);
    if (rc == AM_INVALID || rc == AM_TOOBIG) return AM_OK; /* not a turn the engine takes */
    if (rc) {
        fprintf(stderr, "agentmem eval understand: the engine: add: %s\n", am_errmsg(e->db));
        return rc;
    }
    am_memory_list *l = NULL;
    if ((rc = am_memories(e->db, user, AM_LIST_ACTIVE, NULL, &l))) {
        fprintf(stderr, "agentmem eval understand: the engine: memories: %s\n", am_errmsg(e->db));
        return rc;
    }
    if (e->misses) {
        const char *act = json_string_value(json_object_get(d, "act"));
        size_t active = 0;
        for (size_t i = 0; i < l->n; i++) active += strcmp(l->items[i].status, "active") == 0;
        if ((keeps(act) && !active) || (!keeps(act) && active)) {
            printf("%s %s [%s] %s\n", active ? "KEPT" : "MISSED",
                   json_string_value(json_object_get(d, "id")), act, text);
            for (size_t i = 0; i < l->n; i++)
                printf("    %s %s %s | %s\n", l->items[i].kind, l->items[i].key,
                       l->items[i].value_json && strstr(l->items[i].value_json, "\"source\":\"model\"")
                           ? "model"
                           : "rules",
                       l->items[i].text);
        }
    }
    tally_turn(&e->t[lang], d, l);
    tally_turn(&e->t[2], d, l);
    am_memory_list_free(l);
    return AM_OK;
}

static json_t *tally_json(const lang_tally *t)
{
    json_t *by_kind = json_object();
    for (int i = 0; i < N_KINDS; i++)
        json_object_set_new(by_kind, KINDS[i],
                            json_pack("{s:f, s:I}", "recall", ratio(t->by_kind_kept[i], t->by_kind[i]),
                                      "support", (json_int_t)t->by_kind[i]));
    return json_pack("{s:I, s:{s:f, s:f, s:f, s:I, s:I, s:o}, s:f, s:{s:f, s:I}, s:{s:f, s:f}}", "turns",
                     (json_int_t)t->n, "kept", "recall", ratio(t->kept_right, t->gold_keep), "precision",
                     ratio(t->kept_right, t->kept), "not_kept_correctly",
                     1.0 - ratio(t->must_not_kept, t->must_not), "lasting", (json_int_t)t->gold_keep,
                     "must_not_keep", (json_int_t)t->must_not, "recall_by_kind", by_kind, "kind_accuracy",
                     ratio(t->kind_ok, t->kind_n), "two_memories", "kept_as_two",
                     ratio(t->multi_split, t->multi), "turns", (json_int_t)t->multi, "shares", "rules",
                     ratio(t->by_rules, t->kept), "model", ratio(t->by_model, t->kept));
}

json_t *am_eval_engine_json(const am_eval_engine *e)
{
    static const char *const langs[] = {"zh", "en", "all"};
    json_t *v = json_object();
    for (int l = 0; l < 3; l++) json_object_set_new(v, langs[l], tally_json(&e->t[l]));
    return v;
}

void am_eval_engine_print(const am_eval_engine *e)
{
    static const char *const langs[] = {"zh", "en", "all"};
    printf("\nthe engine (the rules and the model combined, the whole write path, a fresh user a turn)\n");
    for (int l = 0; l < 3; l++) {
        const lang_tally *t = &e->t[l];
        printf("[%s] kept: recall %.3f  precision %.3f  must-not-keep not kept %.3f (%ld of %ld kept)\n",
               langs[l], ratio(t->kept_right, t->gold_keep), ratio(t->kept_right, t->kept),
               1.0 - ratio(t->must_not_kept, t->must_not), t->must_not_kept, t->must_not);
        printf("[%s] kept by kind:", langs[l]);
        for (int i = 0; i < N_KINDS; i++)
            printf("  %s %.2f (%ld)", KINDS[i], ratio(t->by_kind_kept[i], t->by_kind[i]), t->by_kind[i]);
        printf("\n[%s] stored kind right %.3f; two memories kept as two items %.3f (%ld turns);"
               " decided by the rules %.3f, the model %.3f\n",
               langs[l], ratio(t->kind_ok, t->kind_n), ratio(t->multi_split, t->multi), t->multi,
               ratio(t->by_rules, t->kept), ratio(t->by_model, t->kept));
    }
}
