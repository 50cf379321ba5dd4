/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attribute.c -- which task an event belongs to.
 *
 * An explicit task id wins.  Otherwise a text that continues earlier work
 * ("接着", "last time": the continuation cues of
 * text/lexicon/task_cues.c) is attributed by the tasks'
 * own events: its words are searched in the user's event index and the
 * hits vote for their tasks, weighted by score, so it works across
 * phrasing ("那个单子" finds the task whose events mention 单子).  Without
 * a cue or a match, the event stays on the session's current task (the
 * task of its latest event that has one).  A task other than the
 * session's current one is a topic jump, recorded by switch.c.
 *
 * A turn can also leave the session's task without naming another: it
 * opens with a marker of a new topic and makes a request ("另外帮我订一下
 * 周五的会议室", "Also, order a birthday cake for Sam": task.c
 * am__task_topic_shift) whose topic words -- English words, Han words and
 * bigrams free of function characters; no numbers, no lone characters --
 * appear nowhere in the task: its id, its name and its latest events.
 * Such a turn belongs to no task (it moves no stage of the task it left),
 * and the jump is a task_switch to no task; until a later turn names a
 * task, continues one, or shares the left task's topic words again (then
 * it returns to it, a switch back), the session has no current task.
 *
 * A user's turn without a task id that acts on a task (task.c
 * am__task_read: not none, not start) or continues work is matched
 * against the user's open tasks in any session (match_open_task: shared
 * topic words, the same learned topic; a clear winner or nothing):
 * "Let's postpone the RFQ emails to next week" in a new session reaches
 * the open RFQ task.  In a session with a task, another task is taken
 * only when the session's own shares no word with the turn.
 */
#include "write/perceive/perceive.h"

#include <string.h>

#include "domain/task.h"
#include "index/lexical.h"
#include "text/entities.h"
#include "text/lexicon/lexicon.h"

/* *task_id = the open task the text most likely continues, or NULL. */
static int vote_task(am__store *s, am__text *t, const char *uid, const char *text,
                     am__arena *ar, const char **task_id)
{
    *task_id = NULL;
    const char **terms;
    size_t nt;
    int rc = am__query_terms(t, text, ar, &terms, &nt);
    if (rc || nt == 0) return rc;
    am__event_row *rows;
    size_t n;
    rc = am__search_events(s, uid, terms, NULL, nt, 0.0, AM_TIME_NONE, AM_TIME_NONE, 30, ar,
                              &rows, &n, NULL);
    if (rc) return rc;
    const char *best = NULL;
    double best_votes = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].task_id) continue;
        double votes = 0;
        for (size_t j = 0; j < n; j++)
            if (rows[j].task_id && strcmp(rows[j].task_id, rows[i].task_id) == 0)
                votes += rows[j].score;
        if (votes > best_votes) {
            am__task_row tr;
            if (am__store_task_get(s, uid, rows[i].task_id, ar, &tr) != AM_OK) continue;
            best_votes = votes;
            best = rows[i].task_id;
        }
    }
    *task_id = best;
    return AM_OK;
}

#define JUMP_CONTEXT 20 /* the task's latest events its topic words are read from */

/* 1 when the bigram t (two Han characters) holds a function character. */
static int function_bigram(const char *t, size_t len)
{
    const char *f = am__lex_han_function_chars;
    for (size_t i = 0; i + 3 <= len; i += 3)
        for (size_t k = 0; f[k]; k += 3)
            if (memcmp(t + i, f + k, 3) == 0) return 1;
    return 0;
}

/* The topic words of text[0..n): *terms (arena), *nt. */
static int topic_words(am__text *t, am__arena *ar, const char *text, size_t n,
                       const char ***terms, size_t *nt)
{
    *nt = 0;
    const char *z = am__arena_strndup(ar, text, n);
    if (!z) return AM_NOMEM;
    const char **all;
    const unsigned char *kinds;
    size_t na;
    int rc = am__query_terms_kinds(t, z, ar, &all, &kinds, &na);
    if (rc || na == 0) return rc;
    *terms = am__arena_alloc(ar, na * sizeof **terms);
    if (!*terms) return AM_NOMEM;
    for (size_t i = 0; i < na; i++) {
        size_t len = strlen(all[i]);
        if (kinds[i] == AM_TOK_NUM || kinds[i] == AM_TOK_UNIGRAM || len < 2) continue;
        if (kinds[i] == AM_TOK_BIGRAM && function_bigram(all[i], len)) continue;
        (*terms)[(*nt)++] = all[i];
    }
    return AM_OK;
}

/* *shares = 1 when text (a topic's words: w[0..nw)) and the text other
 * share a topic word. */
static int shares_words(am__text *t, am__arena *ar, const char *const *w, size_t nw,
                        const char *other, int *shares)
{
    const char **o;
    size_t no;
    int rc = topic_words(t, ar, other, strlen(other), &o, &no);
    for (size_t i = 0; !rc && i < no && !*shares; i++)
        for (size_t k = 0; k < nw && !*shares; k++) *shares = strcmp(o[i], w[k]) == 0;
    return rc;
}

/* *shares = 1 when text[0..n) shares a topic word with task (its id, its
 * name, its latest events), 0 when it does not, -1 when it has none to
 * judge by. */
static int shares_task(am__perceive *x, const char *task, const char *text, size_t n,
                       int *shares)
{
    am__store *s = x->w.store;
    const char **w;
    size_t nw;
    *shares = 0;
    int rc = topic_words(x->w.text, x->w.ar, text, n, &w, &nw);
    if (rc) return rc;
    if (nw == 0) {
        *shares = -1;
        return AM_OK;
    }
    if ((rc = shares_words(x->w.text, x->w.ar, w, nw, task, shares)) || *shares) return rc;
    am__task_row tr;
    rc = am__store_task_get(s, x->w.uid, task, x->w.ar, &tr);
    if (rc == AM_OK && tr.name && (rc = shares_words(x->w.text, x->w.ar, w, nw, tr.name, shares)))
        return rc;
    if (rc != AM_OK && rc != AM_NOTFOUND) return rc;
    if (*shares) return AM_OK;
    am__event_row *rows;
    size_t nr;
    if ((rc = am__store_events_recent(s, x->w.uid, NULL, task, AM_TIME_NONE, JUMP_CONTEXT, x->w.ar,
                                      &rows, &nr)))
        return rc;
    for (size_t i = 0; i < nr && !*shares; i++)
        if (strcmp(rows[i].type, "task_switch") != 0 &&
            (rc = shares_words(x->w.text, x->w.ar, w, nw, rows[i].content, shares)))
            return rc;
    return AM_OK;
}

/* ------------------------------------------------------------ open tasks */

#define MATCH_TASKS 8     /* open tasks a turn is matched against, latest updated first */
#define MATCH_EVENTS 8    /* the latest events of each that are read */
#define MATCH_TEXT 600    /* bytes of a task's name and events its topic is read from */
#define MATCH_MIN 1.5     /* the score a match needs */
#define MATCH_MIN_CUE 1.0 /* the same for a status the cue tables read */
#define MATCH_MARGIN 0.5  /* and its lead over the runner-up */
#define MATCH_TOPIC 0.5   /* what a shared topic adds */
#define MATCH_TOPIC_P 0.3f /* the topic's probability from which it counts */

/* The turn's topic words without its dates, times and numbers ("next
 * week", "下周" say when, not which task). */
static int turn_words(am__perceive *x, const char *norm, size_t n, const char ***w, size_t *nw)
{
    char *z = am__arena_strndup(x->w.ar, norm, n);
    if (!z) return AM_NOMEM;
    am__entity ents[32];
    size_t ne = 0;
    if (am__entities_extract(z, n, x->ev->occurred_at, x->ev->tz_minutes, ents, 32, &ne))
        ne = 0;
    for (size_t i = 0; i < ne; i++) {
        int ty = ents[i].type;
        if (ty == AM_ENT_DATE || ty == AM_ENT_TIME || ty == AM_ENT_DATETIME ||
            ty == AM_ENT_RANGE || ty == AM_ENT_NUMBER || ty == AM_ENT_AMOUNT ||
            ty == AM_ENT_PERCENT || ty == AM_ENT_WEEKDAY_RECURRING)
            memset(z + ents[i].start, ' ', ents[i].end - ents[i].start);
    }
    return topic_words(x->w.text, x->w.ar, z, n, w, nw);
}

/* has[k] = 1 for each word w[k] among the topic words of text. */
static int mark_words(am__text *t, am__arena *ar, const char *const *w, size_t nw,
                      const char *text, unsigned char *has)
{
    const char **o;
    size_t no;
    int rc = topic_words(t, ar, text, strlen(text), &o, &no);
    for (size_t i = 0; !rc && i < no; i++)
        for (size_t k = 0; k < nw; k++)
            if (!has[k] && strcmp(o[i], w[k]) == 0) has[k] = 1;
    return rc;
}

/* Append text to b while b holds less than MATCH_TEXT bytes, cut on a
 * character boundary. */
static void add_text(am__buf *b, const char *text)
{
    size_t room = b->len < MATCH_TEXT ? MATCH_TEXT - b->len : 0, n = strlen(text);
    if (n > room) {
        n = room;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
    }
    if (n == 0) return;
    if (b->len) am__buf_addc(b, ' ');
    am__buf_add(b, text, n);
}

int am__perceive_names_task(am__perceive *x, const am__task_row *t, const char *norm,
                            size_t norm_len, int first, int *names)
{
    am__store *s = x->w.store;
    *names = 0;
    const char **w;
    size_t nw;
    int rc = turn_words(x, norm, norm_len, &w, &nw);
    if (rc || nw == 0) return rc;
    unsigned char *has = am__arena_alloc(x->w.ar, nw);
    if (!has) return AM_NOMEM;
    memset(has, 0, nw);
    if ((rc = mark_words(x->w.text, x->w.ar, w, nw, t->task_id, has)) ||
        (t->name && (rc = mark_words(x->w.text, x->w.ar, w, nw, t->name, has))))
        return rc;
    am__event_row *rows;
    size_t nr;
    if ((rc = am__store_events_recent(s, x->w.uid, NULL, t->task_id,
                                      first ? t->created_at + 1 : x->ev->occurred_at - 1,
                                      first ? 2 : JUMP_CONTEXT, x->w.ar, &rows, &nr)))
        return rc;
    for (size_t i = 0; i < nr && !rc; i++)
        if (strcmp(rows[i].type, "task_switch") != 0)
            rc = mark_words(x->w.text, x->w.ar, w, nw, rows[i].content, has);
    for (size_t k = 0; k < nw && !*names; k++) *names = has[k];
    return rc;
}

/* The user's open task a turn names without its id: each of the
 * MATCH_TASKS latest open tasks (any session) scores the turn's topic
 * words found in its id, name or latest events -- a word that several of
 * them hold counts 1/their number -- plus MATCH_TOPIC when the learned
 * reading gives the turn and the task the same topic.  *task_id = the
 * best when it scores MATCH_MIN and leads by MATCH_MARGIN (two tasks
 * alike, or none, and nothing is guessed), else NULL; *of_current = the
 * score of the task `current` (0 when it is not among them). */
static int match_open_task(am__perceive *x, const char *norm, size_t n, const am__task_row *tasks,
                           size_t nt, const char *current, double min, const char **task_id,
                           double *of_current)
{
    am__store *s = x->w.store;
    am__arena *ar = x->w.ar;
    *task_id = NULL;
    *of_current = 0;
    const char **w;
    size_t nw;
    int rc = turn_words(x, norm, n, &w, &nw);
    if (rc || nw == 0) return rc;
    unsigned char *has = am__arena_alloc(ar, nt * nw);
    unsigned char *topic = am__arena_alloc(ar, nt);
    if (!has || !topic) return AM_NOMEM;
    memset(has, 0, nt * nw);
    memset(topic, 0, nt);
    am__task_reading turn;
    am__task_model(x->ev->content, &turn);
    am__buf b;
    am__buf_init(&b, ar->a);
    for (size_t i = 0; i < nt && !rc; i++) {
        unsigned char *h = has + i * nw;
        b.len = 0;
        add_text(&b, tasks[i].name);
        if ((rc = mark_words(x->w.text, ar, w, nw, tasks[i].task_id, h)) ||
            (strcmp(tasks[i].name, tasks[i].task_id) != 0 &&
             (rc = mark_words(x->w.text, ar, w, nw, tasks[i].name, h))))
            break;
        am__event_row *rows;
        size_t nr;
        if ((rc = am__store_events_recent(s, x->w.uid, NULL, tasks[i].task_id, AM_TIME_NONE,
                                          MATCH_EVENTS, ar, &rows, &nr)))
            break;
        for (size_t j = 0; j < nr && !rc; j++) {
            if (strcmp(rows[j].type, "task_switch") == 0) continue;
            rc = mark_words(x->w.text, ar, w, nw, rows[j].content, h);
            add_text(&b, rows[j].content);
        }
        if (rc || b.oom || turn.topic_p < MATCH_TOPIC_P) continue;
        am__buf_addc(&b, 0);
        am__task_reading r;
        am__task_model(b.p, &r);
        topic[i] = r.topic_p >= MATCH_TOPIC_P && strcmp(r.topic, turn.topic) == 0;
    }
    if (!rc && b.oom) rc = AM_NOMEM;
    am__buf_free(&b);
    if (rc) return rc;
    double best = 0, second = 0;
    size_t at = 0;
    for (size_t i = 0; i < nt; i++) {
        double score = topic[i] ? MATCH_TOPIC : 0;
        for (size_t k = 0; k < nw; k++) {
            if (!has[i * nw + k]) continue;
            int df = 0;
            for (size_t j = 0; j < nt; j++) df += has[j * nw + k];
            score += 1.0 / df;
        }
        if (current && strcmp(tasks[i].task_id, current) == 0) *of_current = score;
        if (score > best) {
            second = best;
            best = score;
            at = i;
        } else if (score > second) {
            second = score;
        }
    }
    if (best >= min && best - second >= MATCH_MARGIN) *task_id = tasks[at].task_id;
    return AM_OK;
}

int am__perceive_attribute(am__perceive *x, const am_event *in, const char *norm,
                           size_t norm_len, const char **task_id, const char **switched_from)
{
    am__store *s = x->w.store;
    const char *current = NULL, *left = NULL; /* left: the task a jump to none left */
    int rc;
    *switched_from = NULL;
    if (in->session_id) {
        am__event_row *rows;
        size_t n;
        rc = am__store_events_recent(s, x->w.uid, in->session_id, NULL, AM_TIME_NONE, 20, x->w.ar,
                                     &rows, &n);
        if (rc) return rc;
        for (size_t i = 0; i < n && !current && !left; i++) {
            if (am__task_switch_left(&rows[i], x->w.ar, &left) == AM_NOMEM) return AM_NOMEM;
            if (!left) current = rows[i].task_id;
        }
    }
    *task_id = in->task_id;
    int continues = am__task_continuation(norm, norm_len);
    if (!*task_id && continues &&
        (rc = vote_task(s, x->w.text, x->w.uid, in->text, x->w.ar, task_id)))
        return rc;
    am__task_row *open = NULL;
    size_t nopen = 0;
    if (!*task_id && strcmp(x->ev->source, "user") == 0 &&
        (rc = s->vt->tasks.tasks_list(s, x->w.uid, NULL, 1, MATCH_TASKS, x->w.ar, &open, &nopen)))
        return rc;
    if (nopen > 0) {
        /* a turn that acts on a task names it by its words ("let's push
         * the RFQ emails to next week"), in this session or another: the
         * open task it names, when it is not the session's own */
        const am__task_signal *sig = am__perceive_signal(x, norm, norm_len);
        if ((sig->act && strcmp(sig->act, "start") != 0) || continues) {
            const char *named;
            double of_current;
            /* a status the cue tables read is sure: one word the task
             * alone holds names it */
            int exact = sig->rule && strcmp(sig->rule, "model") != 0 && sig->act;
            if ((rc = match_open_task(x, norm, norm_len, open, nopen, current,
                                      exact ? MATCH_MIN_CUE : MATCH_MIN, &named, &of_current)))
                return rc;
            if (named && (!current || (strcmp(named, current) != 0 && of_current == 0)))
                *task_id = named;
        }
    }
    if (!*task_id && left) {
        /* after a jump to no task: back to the task left when the turn
         * speaks of it again */
        int shares;
        if ((rc = shares_task(x, left, norm, norm_len, &shares))) return rc;
        if (shares == 1) {
            *task_id = left;
            *switched_from = am__perceive_no_task;
        }
        return AM_OK;
    }
    size_t rest;
    if (!*task_id && current && (rest = am__task_topic_shift(norm, norm_len)) > 0) {
        int shares;
        if ((rc = shares_task(x, current, norm + rest, norm_len - rest, &shares))) return rc;
        if (shares == 0) {
            *switched_from = current; /* a jump to no task */
            return AM_OK;
        }
    }
    if (!*task_id) *task_id = current;
    if (*task_id && current && strcmp(*task_id, current) != 0) *switched_from = current;
    if (*task_id && !current && left) *switched_from = am__perceive_no_task;
    return AM_OK;
}
