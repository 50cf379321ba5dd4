/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/weekdays.c -- weekday and day-part names of a weekly pattern's text
 * (semantic/patterns.c), indexed by weekday (0 = Monday) and part; keep the
 * order.
 */
#include "text/lexicon/lexicon.h"

const char *const am__lex_weekday_key[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};

const char *const am__lex_weekday_en[] = {"Monday", "Tuesday", "Wednesday", "Thursday",
                                          "Friday", "Saturday", "Sunday"};

const char *const am__lex_weekday_zh[] = {"周一", "周二", "周三", "周四", "周五", "周六", "周日"};

const char *const am__lex_part_en[] = {"nights", "mornings", "afternoons", "evenings"};

const char *const am__lex_part_zh[] = {"凌晨", "上午", "下午", "晚上"};
