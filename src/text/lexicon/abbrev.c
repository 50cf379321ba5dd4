/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/abbrev.c -- English abbreviations and sentence openers for the
 * sentence splitter (text/sentences.c).  Only abbreviations that hold a
 * vowel are listed: the shapes the splitter recognises by itself (single
 * capitals "J.", dotted letters "e.g." "U.S." "Ph.D.", capitalised
 * vowel-less tokens "Dr" "Mrs" "St" "Sgt", vowel-less units after a
 * number "5 km.") need no list.
 *
 * A word starting with a capital matches only a capitalised token ("No."
 * but not "no."); a lower-case word matches in any case ("vs." "Vs.").
 */
#include "text/lexicon/lexicon.h"

/* Abbreviations that stand before what they qualify (a title before a
 * name, "No." before a number, "e.g." before an example): a capitalised
 * word after one is its object, not a new sentence. */
const char *const am__lex_abbrev_prefix[] = {
    "Prof", "Gen", "Sen", "Rep", "Rev", "Capt", "Col", "Gov", "Pres", "Hon", "Fr", "Adm",
    "Maj", "Cmdr", "Insp", "Supt", "Det", "Atty", "Mme", "Mlle", "Messrs", "Mx", "Sra",
    "Srta", "No", "Nos", "Vol", "Vols", "Fig", "Figs", "Art", "Sec", "Ch", "Chap", "Eq",
    "Ref", "Op", "Ex", "vs", "cf", "viz", "approx", "ca", "incl", "esp", "resp",
    NULL};

/* Abbreviations that can end a sentence (a company's or person's suffix,
 * a month, a unit, "etc."): a capitalised word after one starts the
 * next sentence. */
const char *const am__lex_abbrev_final[] = {
    "Inc", "Ltd", "Co", "Corp", "Jr", "Sr", "Bros", "Esq", "Plc", "Ave", "Blvd", "Rd", "Hwy",
    "Dept", "Univ", "Assn", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept",
    "Oct", "Nov", "Dec", "Mon", "Tue", "Tues", "Wed", "Thu", "Thur", "Thurs", "Fri", "Sat",
    "etc", "al", "min", "mins", "hr", "hrs", "sec", "secs", "est", "qty", "pcs", "ext", "tel",
    "oz", "gal", "yr", "yrs", "mo", "mos", "wk", "wks", NULL};

/* Words that open a sentence (pronouns, determiners, conjunctions,
 * question words, a few discourse openers), compared without case: after
 * an abbreviation that stands before a name, one of these capitalised
 * still starts a new sentence ("... in the U.S. It was ..."). */
const char *const am__lex_sentence_openers[] = {
    "i", "i'm", "i'll", "i've", "i'd", "it", "it's", "he", "he's", "she", "she's", "we",
    "we're", "they", "they're", "you", "you're", "the", "this", "that", "these", "those",
    "there", "then", "but", "and", "so", "or", "my", "our", "your", "his", "her", "their",
    "its", "what", "when", "where", "why", "how", "who", "which", "if", "also", "please",
    "let's", "let", "now", "yes", "no", "ok", "okay", "thanks", "thank", "after", "before",
    "today", "tomorrow", "yesterday", "from", "in", "on", "at", "for", "a", "an", "is", "are",
    "was", "do", "does", "did", "can", "could", "will", "would", "should", "anyway", "still",
    "however", "otherwise", "besides", "meanwhile", "sorry", "hi", "hello", NULL};
