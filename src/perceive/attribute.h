/*
 * attribute.h -- which open task a text refers to, judged by the task's own
 * events: the text's words are searched in the user's event index and the
 * hits vote for their tasks (weighted by score).  Works across phrasing
 * ("那个单子" finds the task whose events mention 单子) and is shared by the
 * write path (F5) and the router (F14, F20).
 */
#ifndef AM_PERCEIVE_ATTRIBUTE_H
#define AM_PERCEIVE_ATTRIBUTE_H

#include "store/store.h"
#include "text/analyze.h"

/* *task_id = the open task the text most likely continues, or NULL. */
int am__task_guess(am__store *s, am__text *t, const char *uid,
                   const char *text, am__arena *ar, const char **task_id);

#endif
