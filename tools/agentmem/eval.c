/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval.c -- `agentmem eval understand`: the learned reading of a turn
 * (am_understand) against a split of the labelled corpus (data/understand,
 * LABELS.md): per head accuracy; per label precision, recall and F1 by
 * language; the act confusion matrix; what is kept -- a turn the reading
 * calls lasting or correction -- against what should be (recall, precision,
 * and the share of turns that must not be kept that are not), by language
 * and by the kind of memory; the kinds' macro-F1.  On the public header
 * and jansson only.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "cli.h"
#include "eval_engine.h"

static const char *const ACTS[] = {"lasting",     "fact",         "oneoff",      "question",
                                   "smalltalk",   "hypothetical", "reported",    "complaint",
                                   "ref_promote", "ref_withdraw", "invalidation", "correction"};
#define N_ACTS 12
static const char *const TASKS[] = {"none",  "start", "advance",  "done",
                                    "cancel", "pause", "postpone", "resume"};
#define N_TASKS 8
static const char *const KINDS[] = {"preference", "constraint", "profile", "habit", "norm"};
#define N_KINDS 5
static const char *const LANGS[] = {"zh", "en", "all"};

static int index_of(const char *const *names, int n, const char *v)
{
    for (int i = 0; i < n; i++)
        if (v && strcmp(names[i], v) == 0) return i;
    return -1;
}
static int keeps(const char *act) { return strcmp(act, "lasting") == 0 || strcmp(act, "correction") == 0; }
static int must_not_keep(const char *act)
{
    static const char *const no[] = {"fact", "oneoff", "question", "smalltalk", "hypothetical",
                                     "reported", "complaint"};
    return index_of(no, 7, act) >= 0;
}

typedef struct prf {
    long tp, fp, fn;
} prf;
static double ratio(long a, long b) { return b ? (double)a / (double)b : 0; }
static double f1(prf p)
{
    double pr = ratio(p.tp, p.tp + p.fp), rc = ratio(p.tp, p.tp + p.fn);
    return pr + rc > 0 ? 2 * pr * rc / (pr + rc) : 0;
}
static json_t *prf_json(prf p)
{
    return json_pack("{s:f, s:f, s:f, s:I}", "precision", ratio(p.tp, p.tp + p.fp), "recall",
                     ratio(p.tp, p.tp + p.fn), "f1", f1(p), "support", (json_int_t)(p.tp + p.fn));
}

typedef struct tally {
    long n, act_ok, task_ok, whose_ok, topic_ok, kind_n, kind_ok;
    prf act[N_ACTS], task[N_TASKS], kind[N_KINDS], keep;
    long must_not, must_not_kept;
    long keep_by_kind[N_KINDS], kept_by_kind[N_KINDS];
} tally;

static long confusion[N_ACTS][N_ACTS];

static void count(tally *t, json_t *d, const am_understanding *u)
{
    const char *act = json_string_value(json_object_get(d, "act"));
    const char *task = json_string_value(json_object_get(d, "task_act"));
    const char *whose = json_string_value(json_object_get(d, "whose"));
    const char *topic = json_string_value(json_object_get(d, "topic"));
    json_t *mems = json_object_get(d, "memories");
    int ga = index_of(ACTS, N_ACTS, act), pa = index_of(ACTS, N_ACTS, u->act);
    int gt = index_of(TASKS, N_TASKS, task), pt = index_of(TASKS, N_TASKS, u->task_act);
    t->n++;
    t->act_ok += ga == pa;
    t->task_ok += gt == pt;
    t->whose_ok += whose && strcmp(whose, u->whose) == 0;
    t->topic_ok += topic && strcmp(topic, u->topic) == 0;
    for (int i = 0; i < N_ACTS; i++) {
        t->act[i].tp += ga == i && pa == i;
        t->act[i].fp += ga != i && pa == i;
        t->act[i].fn += ga == i && pa != i;
    }
    for (int i = 0; i < N_TASKS; i++) {
        t->task[i].tp += gt == i && pt == i;
        t->task[i].fp += gt != i && pt == i;
        t->task[i].fn += gt == i && pt != i;
    }
    int gk = keeps(act), pk = keeps(u->act);
    t->keep.tp += gk && pk;
    t->keep.fp += !gk && pk;
    t->keep.fn += gk && !pk;
    if (must_not_keep(act)) {
        t->must_not++;
        t->must_not_kept += pk;
    }
    if (gk && json_array_size(mems)) {
        /* the kind: right when it is one of the turn's memories' kinds */
        int first = index_of(KINDS, N_KINDS, json_string_value(json_object_get(json_array_get(mems, 0), "kind")));
        int pkind = index_of(KINDS, N_KINDS, u->kind), hit = 0;
        for (size_t i = 0; i < json_array_size(mems); i++)
            hit |= index_of(KINDS, N_KINDS, json_string_value(json_object_get(json_array_get(mems, i), "kind"))) == pkind;
        int gold = hit ? pkind : first;
        t->kind_n++;
        t->kind_ok += hit;
        for (int i = 0; i < N_KINDS; i++) {
            t->kind[i].tp += gold == i && pkind == i;
            t->kind[i].fp += gold != i && pkind == i;
            t->kind[i].fn += gold == i && pkind != i;
        }
        if (first >= 0) {
            t->keep_by_kind[first]++;
            t->kept_by_kind[first] += pk;
        }
    }
}

static json_t *tally_json(const tally *t)
{
    json_t *v = json_object(), *acts = json_object(), *tasks = json_object(), *kinds = json_object(),
           *by_kind = json_object();
    double macro = 0;
    for (int i = 0; i < N_ACTS; i++) json_object_set_new(acts, ACTS[i], prf_json(t->act[i]));
    for (int i = 0; i < N_TASKS; i++) json_object_set_new(tasks, TASKS[i], prf_json(t->task[i]));
    for (int i = 0; i < N_KINDS; i++) {
        json_object_set_new(kinds, KINDS[i], prf_json(t->kind[i]));
        macro += f1(t->kind[i]) / N_KINDS;
        json_object_set_new(by_kind, KINDS[i],
                            json_pack("{s:f, s:I}", "recall", ratio(t->kept_by_kind[i], t->keep_by_kind[i]),
                                      "support", (json_int_t)t->keep_by_kind[i]));
    }
    json_object_set_new(v, "turns", json_integer(t->n));
    json_object_set_new(v, "accuracy",
                        json_pack("{s:f, s:f, s:f, s:f, s:f}", "act", ratio(t->act_ok, t->n), "task_act",
                                  ratio(t->task_ok, t->n), "whose", ratio(t->whose_ok, t->n), "topic",
                                  ratio(t->topic_ok, t->n), "kind", ratio(t->kind_ok, t->kind_n)));
    json_object_set_new(v, "kept",
                        json_pack("{s:f, s:f, s:f, s:I, s:I, s:o}", "recall",
                                  ratio(t->keep.tp, t->keep.tp + t->keep.fn), "precision",
                                  ratio(t->keep.tp, t->keep.tp + t->keep.fp), "not_kept_correctly",
                                  1.0 - ratio(t->must_not_kept, t->must_not), "lasting",
                                  (json_int_t)(t->keep.tp + t->keep.fn), "must_not_keep",
                                  (json_int_t)t->must_not, "recall_by_kind", by_kind));
    json_object_set_new(v, "kind_macro_f1", json_real(macro));
    json_object_set_new(v, "act", acts);
    json_object_set_new(v, "task_act", tasks);
    json_object_set_new(v, "kind", kinds);
    return v;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The files of split that DIR/splits.tsv lists into names (sorted): their
 * number, or -1.  A name is a writer ("w09": writers/w09.jsonl) or a source
 * ("sources/madial_dev": sources/madial_dev.jsonl) */
static int files_of(const char *dir, const char *split, char **names, int max)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/splits.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int n = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        if (line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        size_t sl = strlen(split);
        if (strncmp(tab + 1, split, sl) == 0 && (tab[1 + sl] == '\t' || tab[1 + sl] == '\n'))
            names[n++] = strdup(line);
    }
    fclose(f);
    qsort(names, (size_t)n, sizeof *names, by_name);
    return n;
}

/* One head's labels: precision, recall, F1 and support */
static void print_table(const char *lang, const char *head, const char *const *names, const prf *p,
                        int n)
{
    printf("[%s] %-13s %6s %6s %6s %6s\n", lang, head, "P", "R", "F1", "n");
    for (int i = 0; i < n; i++)
        printf("[%s] %-13s %6.3f %6.3f %6.3f %6ld\n", lang, names[i], ratio(p[i].tp, p[i].tp + p[i].fp),
               ratio(p[i].tp, p[i].tp + p[i].fn), f1(p[i]), p[i].tp + p[i].fn);
}

static void print_text(const char *split, tally *t)
{
    printf("agentmem eval understand: split %s, %ld turns (zh %ld, en %ld); the model alone\n", split,
           t[2].n, t[0].n, t[1].n);
    for (int l = 0; l < 3; l++) {
        printf("\n[%s] accuracy: act %.3f  task_act %.3f  whose %.3f  topic %.3f  kind %.3f\n", LANGS[l],
               ratio(t[l].act_ok, t[l].n), ratio(t[l].task_ok, t[l].n), ratio(t[l].whose_ok, t[l].n),
               ratio(t[l].topic_ok, t[l].n), ratio(t[l].kind_ok, t[l].kind_n));
        printf("[%s] kept (lasting + correction): recall %.3f  precision %.3f  must-not-keep not kept %.3f"
               " (%ld of %ld kept)\n",
               LANGS[l], ratio(t[l].keep.tp, t[l].keep.tp + t[l].keep.fn),
               ratio(t[l].keep.tp, t[l].keep.tp + t[l].keep.fp), 1.0 - ratio(t[l].must_not_kept, t[l].must_not),
               t[l].must_not_kept, t[l].must_not);
        printf("[%s] kept by kind:", LANGS[l]);
        for (int i = 0; i < N_KINDS; i++)
            printf("  %s %.2f (%ld)", KINDS[i], ratio(t[l].kept_by_kind[i], t[l].keep_by_kind[i]),
                   t[l].keep_by_kind[i]);
        printf("\n");
        print_table(LANGS[l], "act", ACTS, t[l].act, N_ACTS);
        print_table(LANGS[l], "task_act", TASKS, t[l].task, N_TASKS);
    }
    printf("\nact confusion (rows: the label, columns: the reading)\n%13s", "");
    for (int j = 0; j < N_ACTS; j++) printf(" %5.5s", ACTS[j]);
    printf("\n");
    for (int i = 0; i < N_ACTS; i++) {
        printf("%-13s", ACTS[i]);
        for (int j = 0; j < N_ACTS; j++) printf(" %5ld", confusion[i][j]);
        printf("\n");
    }
}

int am_cli_eval(int argc, char **argv)
{
    const char *corpus = "data/understand", *split = "test";
    int as_json = 0, misses = 0;
    if (argc < 2 || strcmp(argv[1], "understand") != 0) {
        fprintf(stderr, "usage: agentmem eval understand [--corpus DIR] [--split dev|test] [--json] [--misses]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc) corpus = argv[++i];
        else if (strcmp(argv[i], "--split") == 0 && i + 1 < argc) split = argv[++i];
        else if (strcmp(argv[i], "--json") == 0) as_json = 1;
        else if (strcmp(argv[i], "--misses") == 0) misses = 1;
        else {
            fprintf(stderr, "agentmem eval understand: unknown option %s\n"
                            "usage: agentmem eval understand [--corpus DIR] [--split dev|test] [--json] [--misses]\n",
                    argv[i]);
            return 2;
        }
    }
    if (strcmp(split, "dev") != 0 && strcmp(split, "test") != 0 && strcmp(split, "train") != 0) {
        fprintf(stderr, "agentmem eval understand: --split: expected dev or test (or train), got %s\n", split);
        return 2;
    }
    char *names[256];
    int n = files_of(corpus, split, names, 256);
    if (n <= 0) {
        fprintf(stderr, "agentmem eval understand: %s/splits.tsv: %s\n", corpus,
                n < 0 ? "cannot be read" : "no file in that split");
        return 1;
    }
    tally t[3];
    memset(t, 0, sizeof t);
    int rc = 0;
    am_eval_engine *engine = am_eval_engine_new(misses);
    if (!engine) rc = 1;
    for (int w = 0; w < n && !rc; w++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s%s.jsonl", corpus, strchr(names[w], '/') ? "" : "writers/", names[w]);
        FILE *f = fopen(path, "r");
        if (!f) {
            fprintf(stderr, "agentmem eval understand: %s: cannot be read\n", path);
            rc = 1;
            break;
        }
        char *line = NULL;
        size_t cap = 0;
        long ln = 0;
        while (getline(&line, &cap, f) > 0) {
            ln++;
            json_error_t je;
            json_t *d = json_loads(line, 0, &je);
            const char *text = d ? json_string_value(json_object_get(d, "text")) : NULL;
            const char *lang = d ? json_string_value(json_object_get(d, "lang")) : NULL;
            const char *act = d ? json_string_value(json_object_get(d, "act")) : NULL;
            am_understanding u;
            if (!text || !lang || index_of(ACTS, N_ACTS, act) < 0 || am_understand(text, &u)) {
                fprintf(stderr, "agentmem eval understand: %s:%ld: not a corpus line (LABELS.md)\n", path, ln);
                json_decref(d);
                rc = 1;
                break;
            }
            int l = strcmp(lang, "zh") == 0 ? 0 : 1;
            count(&t[l], d, &u);
            count(&t[2], d, &u);
            if ((rc = am_eval_engine_turn(engine, d, l))) {
                json_decref(d);
                break;
            }
            confusion[index_of(ACTS, N_ACTS, act)][index_of(ACTS, N_ACTS, u.act)]++;
            json_decref(d);
        }
        free(line);
        fclose(f);
    }
    for (int w = 0; w < n; w++) free(names[w]);
    if (rc) {
        am_eval_engine_free(engine);
        return 1;
    }
    if (as_json) {
        /* the share of the answers each part gave: the model alone (no rule
         * combined with it in am_understand yet) */
        json_t *v = json_pack("{s:s, s:{s:f, s:f}}", "split", split, "shares", "model", 1.0, "rules", 0.0);
        if (!v) return 1;
        for (int l = 0; l < 3; l++) json_object_set_new(v, LANGS[l], tally_json(&t[l]));
        json_t *conf = json_object();
        for (int i = 0; i < N_ACTS; i++) {
            json_t *row = json_object();
            for (int j = 0; j < N_ACTS; j++) json_object_set_new(row, ACTS[j], json_integer(confusion[i][j]));
            json_object_set_new(conf, ACTS[i], row);
        }
        json_object_set_new(v, "act_confusion", conf);
        json_object_set_new(v, "engine", am_eval_engine_json(engine));
        am_eval_engine_free(engine);
        char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(v);
        if (!s) return 1;
        printf("%s\n", s);
        free(s);
    } else {
        print_text(split, t);
        am_eval_engine_print(engine);
        am_eval_engine_free(engine);
    }
    return 0;
}
