/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon.h -- the language knowledge of agentmem in one place: the Chinese
 * and English word tables that the layers read, defined in text/lexicon/
 * (one file per topic), so that code files keep the logic and a linguist
 * edits words here.  Tables are data only; each comment says who reads it.
 *
 * Shapes: a NULL-terminated word list (`const char *const x[]`), a cue
 * table ending with AM__CUE(NULL) (text/cue.h: phrase + context lists), or
 * a small struct table.  A table declared with a size here is counted by
 * its reader (sizeof): adding a row means changing the size below too (the
 * compiler checks that both agree).  Order matters where a comment says so
 * (the stopwords are sorted for binary search; the weekday names are
 * indexed by weekday).
 *
 * Kept with their code, not here:
 *  - the entity parsers' words (text/ent_clock.c, ent_time.c, ent_date_en.c,
 *    ent_num.c, entities.c, and ent_misc.c's ent_format_at): dates, clock
 *    times, durations and their units, numbers, currencies and format
 *    names.  They are parallel arrays keyed by position -- a word and its
 *    month number, unit code (ENT_U_*), day offset, hint or normal form at
 *    the same index -- mostly local to the one parser function that walks
 *    them, and the code tests indices ("may" is en_months[4], the
 *    abbreviations start at 12); moved apart, a linguist adding a word
 *    would shift the meaning of the words after it.  entities.c's
 *    han_triggers / en_triggers (every first character or word an entity
 *    can start with) are derived from those words and stay beside them;
 *    they must also cover lexicon/names.c's surnames and titles;
 *  - text/redact.c's secret-token formats (tokfmt: prefixes and character
 *    classes of API keys, no words), quote pairs, sentence stops and the
 *    type tags of placeholders;
 *  - punctuation and single-byte checks written in code (clause marks in
 *    text/cue.c, closing marks in text/question.c, recall/expand.c's
 *    sentence split and semantic/promote.c's "吧" / "以后" frames);
 *  - output templates (recall/render.c's conflict line, semantic/patterns.c's
 *    pattern sentences).
 */
#ifndef AM_TEXT_LEXICON_H
#define AM_TEXT_LEXICON_H

#include "text/cue.h"

/* A named cue table: the status, stage, topic or attribute it stands for. */
typedef struct am__lex_cues {
    const char *name;
    const am__cue *cues;
} am__lex_cues;

/* A named list of words (NULL-terminated), in a table ending with a NULL
 * name. */
typedef struct am__lex_words {
    const char *name;
    const char *const *words;
} am__lex_words;

/* A business domain and its cue words. */
typedef struct am__lex_domain {
    const char *domain;
    const char *const *cues;
} am__lex_domain;

/* A value a weak signal carries and the words that name it. */
typedef struct am__lex_value {
    const char *id;
    const char *const *words;
} am__lex_value;

/* The labels of a rendered memory block in one language. */
typedef struct am__lex_labels {
    const char *memory, *task, *events, *stage, *status, *notes, *artifacts,
        *pending, *unconfirmed;
    /* the task's shared workspace: its title and an entry's parts */
    const char *workspace, *doing, *done, *next;
    /* the rules of the user's packs: an operator's, not the user's words */
    const char *rules;
} am__lex_labels;

/* The PII detector's cue tables (text/redact.c).  A secret's name and
 * the kind of value it announces. */
enum { AM__LEX_SECRET_PWD, AM__LEX_SECRET_TOKEN, AM__LEX_SECRET_CODE, AM__LEX_SECRET_BEARER };
typedef struct am__lex_secret_cue {
    const char *pat; /* ASCII lower case; ' ' = optional ' ', '-' or '_' */
    unsigned char kind;
} am__lex_secret_cue;

/* A connector between a secret's name and its value, and its strength. */
enum { AM__LEX_CONN_NONE, AM__LEX_CONN_WEAK, AM__LEX_CONN_STRONG };
typedef struct am__lex_conn {
    const char *s;
    unsigned char strength;
    unsigned char word; /* 1: an English word (must not run into a letter);
                           2: and only right after the cue ("password to x"
                           but not "password reset link sent to x") */
} am__lex_conn;

/* Context cues for numbers.  AM__LEX_NUM_IDW: "ID", negative for phones
 * and cards ("order ID"), neutral for an ID-card number ("my ID is ..."). */
enum {
    AM__LEX_NUM_NONE,
    AM__LEX_NUM_PHONE,
    AM__LEX_NUM_BANK,
    AM__LEX_NUM_ID,
    AM__LEX_NUM_NEG,
    AM__LEX_NUM_IDW,
    AM__LEX_NUM_PASSPORT, /* a passport number follows (redact.c: code shapes) */
    AM__LEX_NUM_SSN       /* a social security number follows */
};
typedef struct am__lex_num_cue {
    const char *s;
    unsigned char cls;
    unsigned char word; /* 1: ASCII word start; 2: whole ASCII word */
} am__lex_num_cue;

/* ------------------------------------------------------------ questions (text/question.c)
 * lexicon/question.c */
extern const char *const am__lex_question_ends[];
extern const am__cue am__lex_question_cues[];
extern const am__cue am__lex_question_requests[];
extern const char *const am__lex_question_particles[];

/* ------------------------------------------------------------ task state (domain/task.c)
 * lexicon/task_cues.c */
extern const am__cue am__lex_task_status_context;
extern const am__cue am__lex_task_stage_context;
extern const am__cue am__lex_task_guards[];
extern const am__lex_cues am__lex_task_status_rules[5];
extern const am__cue am__lex_task_carry_on[];
extern const am__cue am__lex_task_unfinished[];
extern const am__lex_cues am__lex_task_stage_rules[3];
extern const char *const am__lex_task_continuation_cues[];
/* Topic jumps (perceive/attribute.c): interjections before a marker, the
 * markers of a new topic, request frames, Han function characters (a
 * UTF-8 string). */
extern const char *const am__lex_topic_interjections[];
extern const char *const am__lex_topic_shift[];
extern const char *const am__lex_request_frames[];
extern const char am__lex_han_function_chars[];
extern const am__lex_cues am__lex_task_period_rules[5];

/* ------------------------------------------------------------ distillation rules (distill/rules.c)
 * lexicon/distill_cues.c */
extern const am__cue am__lex_distill_long_term[];
extern const am__cue am__lex_distill_frequency[];
extern const am__cue am__lex_distill_addressed[];
extern const am__cue am__lex_distill_preference_verbs[];
extern const am__cue am__lex_distill_remember[];
extern const am__cue am__lex_distill_past_state[];
extern const am__cue am__lex_distill_ref_promote[];
extern const am__cue am__lex_distill_ref_retract[];
extern const am__cue am__lex_distill_ref_remember[];
extern const char *const am__lex_distill_ref_fillers[];
extern const am__cue am__lex_distill_constraint_cues[];
extern const am__cue am__lex_distill_profile_cues[];
extern const am__cue am__lex_distill_transient[];
extern const am__cue am__lex_distill_one_off_strong[];
extern const am__cue am__lex_distill_one_off_weak[];
extern const am__cue am__lex_distill_directive[];
extern const am__cue am__lex_distill_retract_self[];
extern const am__cue am__lex_distill_retract[];
extern const am__cue am__lex_distill_retract_verbs[];
extern const am__cue am__lex_distill_retract_reference[];
extern const am__cue am__lex_distill_retract_routine[];
extern const am__cue am__lex_distill_hypothetical[];
extern const am__cue am__lex_distill_subjunctive[];
extern const am__cue am__lex_distill_reported[];
extern const am__cue am__lex_distill_other_subject[];
extern const am__lex_cues am__lex_distill_topics[8];
extern const am__lex_cues am__lex_distill_attributes[13];
extern const char *const am__lex_distill_subject_starts[];
extern const char *const am__lex_distill_subject_ends[];
extern const am__lex_cues am__lex_distill_profile_keys[4];

/* ------------------------------------------------------------ lasting forms (distill/rules.c)
 * lexicon/lasting_cues.c */
extern const am__cue am__lex_lasting_past[];
extern const am__cue am__lex_lasting_past_tense[];
extern const am__cue am__lex_lasting_now[];
extern const am__cue am__lex_lasting_modal[];
extern const char *const am__lex_lasting_not_generic[];
extern const am__cue am__lex_lasting_habit[];
extern const am__cue am__lex_lasting_habit_negation[];
extern const am__cue am__lex_lasting_trait[];
extern const char *const am__lex_lasting_copula_not[];
extern const am__cue am__lex_lasting_org[];
extern const char *const am__lex_lasting_possessive_not[];
extern const char *const am__lex_lasting_state_not[];
extern const char *const am__lex_lasting_bare_owner_not[];
extern const char *const am__lex_lasting_place_ends[];
extern const am__cue am__lex_lasting_default[];
extern const am__cue am__lex_lasting_limit[];
extern const am__cue am__lex_lasting_preference[];
extern const am__cue am__lex_eval_target[];
extern const am__cue am__lex_eval_negative[];
extern const am__cue am__lex_eval_positive[];

/* ------------------------------------------------------------ weak preference signals (semantic/promote.c)
 * lexicon/preferences.c */
extern const am__lex_value am__lex_promote_values[15];
extern const char *const am__lex_promote_request_cues[];
extern const char *const am__lex_promote_request_starts[];
extern const char *const am__lex_promote_polite_starts[];
extern const char *const am__lex_promote_negations[];

/* ------------------------------------------------------------ query expansion (recall/expand.c)
 * lexicon/synonyms.c */
extern const char *const am__lex_expand_groups[122][8];
extern const char *const am__lex_expand_hyponyms[40][2];
extern const char *const am__lex_expand_told_forms[19][8];
extern const char *const am__lex_expand_repair_cues[];
extern const char *const am__lex_expand_cond_heads_zh[];
extern const char *const am__lex_expand_cond_lead_zh[];
extern const char *const am__lex_expand_cond_nouns_en[];
extern const char *const am__lex_expand_cond_rel_en[];
extern const char *const am__lex_expand_copulas_en[];
extern const char *const am__lex_expand_marks[];

/* ------------------------------------------------------------ the router (recall/route.c)
 * lexicon/chat.c */
extern const char *const am__lex_route_chit_chat[];
extern const char *const am__lex_route_closings[];
extern const char *const am__lex_route_function_zh[];
extern const char *const am__lex_route_function_en[];
extern const char *const am__lex_route_user_refs[];
extern const char *const am__lex_route_first_person[];
extern const char *const am__lex_route_link_words[];
extern const char *const am__lex_route_file_words[];
extern const am__lex_domain am__lex_route_domains[5];

/* ------------------------------------------------------------ ranking (recall/rank.c)
 * lexicon/recall_cues.c */
extern const char *const am__lex_when_en[];
extern const char *const am__lex_when_zh[];

/* ------------------------------------------------------------ stopwords and function characters (text/analyze.c, recall/hops.c)
 * lexicon/stopwords.c */
extern const char *const am__lex_function_chars[];
extern const char *const am__lex_stopwords[144];

/* ------------------------------------------------------------ block labels (recall/render.c)
 * lexicon/labels.c */
extern const am__lex_labels am__lex_labels_zh;
extern const am__lex_labels am__lex_labels_en;
extern const char *const am__lex_kind_labels[8][3];
extern const char *const am__lex_source_labels[4][3];
extern const char *const am__lex_topic_labels[27][3];

/* ------------------------------------------------------------ speakers (text/speaker.c)
 * lexicon/speaker.c */
extern const char *const am__lex_speaker_en_greet[];
extern const char *const am__lex_speaker_en_not_name[];
extern const char *const am__lex_speaker_zh_greet[];
extern const char *const am__lex_speaker_zh_not_first[];
extern const char *const am__lex_speaker_stops[];

/* ------------------------------------------------------------ weekly patterns (semantic/patterns.c)
 * lexicon/weekdays.c */
extern const char *const am__lex_weekday_key[];
extern const char *const am__lex_weekday_en[];
extern const char *const am__lex_weekday_zh[];
extern const char *const am__lex_part_en[];
extern const char *const am__lex_part_zh[];

/* ------------------------------------------------------------ names (text/ent_misc.c)
 * lexicon/names.c */
extern const char am__lex_zh_surnames[];
extern const char *const am__lex_zh_compound_surnames[];
extern const char *const am__lex_zh_titles[];
extern const char am__lex_zh_not_boss[];
extern const char am__lex_zh_name_follow[];
extern const char *const am__lex_en_titles[];
extern const char *const am__lex_en_person_cues[];
extern const char *const am__lex_en_not_names[185];
extern const char *const am__lex_en_to_verbs[];
extern const char *const am__lex_file_exts[];
extern const char am__lex_name_stops[];
extern const char *const am__lex_zh_org_suffixes[];
extern const char *const am__lex_en_org_suffixes[];
extern const char am__lex_org_suffix_firsts[];
extern const char *const am__lex_zh_org_verbs[];

/* ------------------------------------------------------------ PII (text/redact.c)
 * lexicon/pii.c */
extern const am__lex_secret_cue am__lex_pii_secret_en[32];
extern const am__lex_secret_cue am__lex_pii_secret_zh[14];
extern const am__lex_conn am__lex_pii_connectors[31];
extern const char *const am__lex_pii_stop_values[69];
extern const char *const am__lex_pii_stop_values_zh[62];
extern const char *const am__lex_pii_owners[6];
extern const am__lex_num_cue am__lex_pii_number_cues[115];
extern const char *const am__lex_pii_units_zh[17];
extern const char *const am__lex_pii_units_en[6];

/* The sentence splitter's English abbreviations (text/sentences.c):
 * those that stand before what they qualify ("Prof.", "No.", "vs."), those
 * that can end a sentence ("Inc.", "Jan.", "etc."), and the words that open
 * a sentence ("It", "The", "Then"); NULL-terminated (lexicon/abbrev.c). */
extern const char *const am__lex_abbrev_prefix[];
extern const char *const am__lex_abbrev_final[];
extern const char *const am__lex_sentence_openers[];
/* ------------------------------------------------------------ versions (distill/restate.c,
 * recall/filter.c) lexicon/versions.c */
extern const am__cue am__lex_restate_change[];
extern const am__cue am__lex_restate_now[];
extern const char *const am__lex_restate_now_zh[];
extern const am__cue am__lex_restate_first_person[];
extern const am__cue am__lex_restate_request[];
extern const am__cue am__lex_restate_intent[];
extern const am__cue am__lex_restate_old[];
extern const char *const am__lex_restate_old_ends_zh[];
extern const char *const am__lex_restate_old_ends_en[];
extern const char *const am__lex_restate_old_skip_en[];
extern const char *const am__lex_attr_owner_mid_zh[];
extern const char *const am__lex_attr_modifiers_zh[];
extern const char *const am__lex_attr_past_zh[];
extern const char *const am__lex_attr_modifiers_en[];
extern const char *const am__lex_attr_past_en[];
extern const char *const am__lex_attr_ends_zh[];
extern const char *const am__lex_attr_ends_en[];
extern const char *const am__lex_attr_copula_zh[];
extern const char *const am__lex_attr_value_next_zh[];
extern const char *const am__lex_attr_change_zh[];
extern const char *const am__lex_attr_change_skip_zh[];
extern const char *const am__lex_attr_change_en[];
extern const char *const am__lex_attr_discourse[];
extern const char *const am__lex_attr_persons[];
extern const char *const am__lex_attr_not_value_en[];
extern const char *const am__lex_attr_events[];
extern const am__lex_words am__lex_attr_profile_nouns[];
extern const am__lex_words am__lex_attr_implied[];
extern const am__cue am__lex_time_now[];

#endif
