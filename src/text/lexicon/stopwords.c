/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/stopwords.c -- stopwords of the search terms (text/analyze.c: looked up in
 * a hash table built from this list) and the Han function characters that
 * make a unigram or bigram name nothing (recall/hops.c); both looked up
 * through text/analyze.c's tables.
 */
#include "text/lexicon/lexicon.h"

/* Han function characters: a unigram or bigram of (or with) one names
 * nothing ("的", "会的", "是四"). */
const char *const am__lex_function_chars[] = {"的", "是", "了", "在", "和", "与", "也", "就", "都",
                                              "我", "你", "他", "她", "它", "们", "这", "那", "之",
                                              "其", "呢", "吗", "吧", "啊", "着", NULL};

/* Stemmed English stopwords and Chinese function characters (sorted by
 * bytes, for the reader). */
const char *const am__lex_stopwords[] = {
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "ani", "are",
    "as", "at", "be", "becaus", "been", "befor", "being", "but", "by", "can", "could",
    "did", "do", "doe", "done", "for", "from", "had", "has", "have", "he", "her",
    "here", "him", "his", "how", "i", "if", "in", "into", "is", "its", "just", "me",
    "mi", "more", "most", "my", "no", "not", "now", "of", "on", "onc", "onli", "or",
    "other", "our", "out", "over", "own", "s", "same", "she", "should", "so", "some",
    "such", "t", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "up", "us", "veri", "was", "we",
    "were", "what", "when", "where", "whi", "which", "while", "who", "whom", "will",
    "with", "would", "you", "your", "yourself", "一下", "一个", "也", "了", "什么",
    "他", "你", "你的", "另外", "吗", "吧", "呀", "呗", "呢", "咋", "和",
    "哦", "哪", "哪个", "哪些", "哪儿", "哪里", "啊", "啥", "嘛", "在",
    "多少", "她", "就", "怎么", "我", "我的", "是", "来着", "的", "着",
    "请问", "这个", "那个", "都",
};
