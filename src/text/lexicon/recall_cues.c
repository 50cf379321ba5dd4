/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/recall_cues.c -- words the ranking reads (recall/rank.c,
 * am__asks_when): a question that asks "when" (English phrases match
 * whole words, Chinese ones anywhere).
 */
#include "text/lexicon/lexicon.h"

const char *const am__lex_when_en[] = {"when", "what date", "what day", "what year",
                                       "what month", "what time", "which day", "which year",
                                       "which month", "how long ago", NULL};

const char *const am__lex_when_zh[] = {"什么时候", "啥时候", "何时", "哪天", "哪一天", "哪年",
                                       "哪一年", "几月", "几号", "哪个月", "多久以前", NULL};
