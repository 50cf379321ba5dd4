/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval_engine.h -- the whole write path against the corpus's labels, for
 * `agentmem eval understand` (eval_engine.c).
 */
#ifndef AM_CLI_EVAL_ENGINE_H
#define AM_CLI_EVAL_ENGINE_H
#include <jansson.h>

typedef struct am_eval_engine am_eval_engine;

/* An in-memory engine; NULL (and a message on stderr) when it cannot open.
 * misses: print each turn it got wrong (a lasting one not kept, one that
 * must not be kept kept) with what it kept. */
am_eval_engine *am_eval_engine_new(int misses);
void am_eval_engine_free(am_eval_engine *e);
/* One corpus turn d (lang 0 zh, 1 en) through the write path, tallied. */
int am_eval_engine_turn(am_eval_engine *e, json_t *d, int lang);
/* The figures: by language ("zh", "en", "all"), new reference */
json_t *am_eval_engine_json(const am_eval_engine *e);
void am_eval_engine_print(const am_eval_engine *e);
#endif
