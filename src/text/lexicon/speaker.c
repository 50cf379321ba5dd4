/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/speaker.c -- greetings and non-names for the speaker guess (text/speaker.c): "Hi
 * Anna," / "王老师好，" name the addressee.
 */
#include "text/lexicon/lexicon.h"

/* Latin greetings, lower case, longest first where one begins another. */
const char *const am__lex_speaker_en_greet[] = {
    "good morning", "good afternoon", "good evening", "good night", "happy birthday",
    "congratulations", "welcome back", "thank you", "morning", "congrats", "thanks", "hello",
    "hiya", "howdy", "hey", "hi", "yo", NULL};

/* Capitalised words after a greeting that address no one by name. */
const char *const am__lex_speaker_en_not_name[] = {
    "again", "all", "babe", "bro", "buddy", "dad", "darling", "dear", "dude", "everybody",
    "everyone", "folks", "friend", "girl", "girls", "guys", "honey", "love", "man", "mate",
    "mom", "mum", "much", "so", "sweetie", "team", "there", "too", "you", "y'all", NULL};

/* Chinese greetings: "王老师好" and "你好，王老师" name the addressee. */
const char *const am__lex_speaker_zh_greet[] = {"早上好", "晚上好", "下午好", "中午好", "你好", "您好",
                                                "谢谢", "多谢", "早安", "晚安", "哈喽", "嗨", NULL};

/* First characters of no name: pronouns, particles, groups ("你好啊",
 * "谢谢你们", "你好大家"). */
const char *const am__lex_speaker_zh_not_first[] = {"我", "你", "您", "他", "她", "它", "大", "各", "啊",
                                                    "呀", "呢", "哦", "嘛", "吧", "们", "的", "了", "亲",
                                                    "朋", "同", "老铁", NULL};

/* What may follow a Chinese greeting's name. */
const char *const am__lex_speaker_stops[] = {"！", "，", "。", "？", "～", "!", ",", ".", "?",
                                             "~", " ", NULL};
