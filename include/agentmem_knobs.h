/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agentmem_knobs.h -- every ranking knob of am_rank_config, one line each:
 *
 *     AM_KNOB(type, name, default, min, max, "what it does")
 *
 * This is an X-macro list, not a header of its own: it has no include
 * guard and expects AM_KNOB to be defined by the file that includes it.
 * agentmem.h expands it into the fields of am_rank_config; the library
 * expands it into the defaults of am_config_init and the name table behind
 * am_config_set / am_config_get / am_knob_info; tools read that table
 * (`agentmem bench --rank`, `agentmem knobs`, which prints docs/KNOBS.md).
 * A knob is added here and nowhere else.
 *
 * type is double or int.  An int knob takes only integral values.  Both
 * bounds are inclusive; am_config_set refuses a value outside them.
 * Fields are in list order (the struct's layout), so a new knob is
 * appended at the end; am_config.struct_size tells a caller built against
 * another list (see am_config_init).
 */
AM_KNOB(double, w_heat, 0.6, 0, 100,
        "weight of a memory item's heat (base score, decayed by its half-life) "
        "in its score")
AM_KNOB(double, w_similarity, 0.4, 0, 100,
        "weight of a memory item's word overlap with the turn in its score")
AM_KNOB(double, base_preference, 10, 0, 1000,
        "base score (heat when new) of an explicit preference")
AM_KNOB(double, base_constraint, 8, 0, 1000, "base score of a constraint")
AM_KNOB(double, base_profile, 6, 0, 1000, "base score of a profile fact")
AM_KNOB(double, base_conclusion, 4, 0, 1000,
        "base score of a task conclusion or a pattern")
AM_KNOB(double, base_temp, 2, 0, 1000, "base score of any other (temporary) item")
AM_KNOB(double, half_life_preference_days, 30, 0, 100000,
        "half-life of a preference's or a constraint's heat, in days (profile "
        "facts: three times as long; 0: 30)")
AM_KNOB(double, half_life_conclusion_days, 7, 0, 100000,
        "half-life of a task conclusion's heat, in days (0: 30)")
AM_KNOB(double, half_life_temp_days, 1, 0, 100000,
        "half-life of a temporary item's heat, in days (0: 30)")
AM_KNOB(double, half_life_event_days, 14, 0, 100000,
        "half-life of an event's recency, in days (0: 14)")
AM_KNOB(int, candidates, 50, 1, 100000,
        "events taken from the lexical search before reranking (at least twice "
        "the events asked for)")
AM_KNOB(int, max_memories, 5, 0, 1000,
        "memory items in a recall when the query does not say")
AM_KNOB(int, max_events, 8, 0, 10000, "events in a recall when the query does not say")
AM_KNOB(int, budget_long_tokens, 800, 0, 1000000,
        "token budget of the long-term section of the memory block")
AM_KNOB(int, budget_short_tokens, 300, 0, 1000000,
        "token budget of the short-term section of the memory block")
AM_KNOB(double, w_context, 0.5, 0, 100,
        "BM25 weight of an event's context (the turns before and after it in its "
        "session) beside its own text (1)")
AM_KNOB(double, w_recency, 0.1, 0, 1,
        "weight of recency in an event's score: (1 - w) x relevance + w x recency")
AM_KNOB(double, w_time, 0.3, 0, 100,
        "bonus of an event inside the period the turn names (\"上周\", \"last "
        "month\"); 0: no second search inside that period")
AM_KNOB(double, w_vector, 0.3, 0, 1,
        "weight of vector similarity when an embedder is configured (fused with "
        "the lexical score, see rrf_k); 0: no vector scan")
AM_KNOB(double, min_event_score, 0.3, 0, 1,
        "events scoring below this fraction of the best event are not returned")
AM_KNOB(double, w_session, 0, 0, 100,
        "bonus of a turn from the other hits of its session (evidence clusters); "
        "0: off")
AM_KNOB(double, w_speaker, 1, 0, 100,
        "a turn written as \"Name: text\" whose speaker the question names counts "
        "(1 + w) times its lexical score (first-person facts are about the "
        "speaker); 0: off")
AM_KNOB(double, w_when, 0.3, 0, 100,
        "for a question that asks when (\"when did\", \"什么时候\"), a turn that "
        "names a date or a time (\"yesterday\", \"上周五\") counts (1 + w) times "
        "its lexical score; 0: off")
AM_KNOB(double, rrf_k, 0, 0, 1000000,
        "0: the vector scan's hits are fused linearly (lexical x (1 - w_vector) + "
        "similarity x w_vector); > 0: reciprocal-rank fusion, (1 - w_vector) / "
        "(k + lexical rank) + w_vector / (k + vector rank) with k = rrf_k (60 is "
        "the usual)")
AM_KNOB(int, vector_candidates, 100, 0, 100000,
        "hits of the vector scan fused with the lexical candidates (a noisier "
        "list: the turns both agree on lie deeper); 0: as many as candidates")
AM_KNOB(int, vector_exact_max, 0, -1, 1000000000,
        "a user with more vectors than this is scanned by their sign bits first "
        "(an eighth of the bytes) and the best 4 x vector_candidates (at least "
        "256) rescored with their stored vectors, an approximate scan; 0: the "
        "store's default (4096); -1: always exact")
AM_KNOB(double, w_bridge, 0.9, 0, 100,
        "two-hop search (\"那个规模是六百人的活动，持续时间是什么？\"): the turns "
        "that share the name a top candidate adds to the question (and say what "
        "is asked) join at the candidate's score x w_bridge x how much of that "
        "name they hold; 0: off")
AM_KNOB(int, bridges, 2, 0, 100,
        "top candidates used for two-hop search (per clause of a compound "
        "question); 0: off")
AM_KNOB(double, w_preamble, 0.2, 0, 1,
        "weight of the words of a query outside its asks when it corrects itself "
        "(\"…。不好意思，我真正想问的是：…？\", \"… what I really want to know is "
        "…?\"); 1: no such focus")
AM_KNOB(int, conditions, 1, 0, 1,
        "1: a question that names a thing by one of its facts in a relative clause "
        "(\"那个联系电话是…的人，其职业是什么？\", \"the person whose phone number "
        "is …\") has that clause searched on its own too, its value above its "
        "attribute's name; 0: off")
AM_KNOB(int, pii_matches, 1, 0, 1,
        "1: a question that names a phone number, an e-mail address, an ID or a "
        "card number finds the events that held it (stored redacted) through the "
        "user's PII vault, first; 0: off")
AM_KNOB(int, future_skew_minutes, 1440, 0, 5256000,
        "an event's occurred_at may lie at most this many minutes after the "
        "clock (a client's clock runs ahead); later, and before 1970, it is "
        "refused (a 2206 preference would otherwise win every recall)")
AM_KNOB(double, llm_confidence, 0.5, 0, 1,
        "initial confidence of a memory the optional LLM pass proposes (below a "
        "stated one's 0.8: a user's own statement of the same attribute supersedes it)")
AM_KNOB(int, llm_calls_per_day, 200, 0, 1000000000,
        "requests the LLM pass may make per user and UTC day (retries count); 0: no limit")
AM_KNOB(int, llm_tokens_per_day, 200000, 0, 2000000000,
        "tokens the LLM pass may spend per user and UTC day (the server's usage, else "
        "estimated at four bytes a token); 0: no limit")
AM_KNOB(int, archive_events_days, 90, 0, 36500,
        "events said more than this many days ago keep a short summary in the "
        "hot rows and move their whole text to the cold column (am_archive_events, "
        "`agentmem archive events`, the maintenance pass); 0: never")
AM_KNOB(double, confidence_half_life_profile_days, 270, 1, 100000,
        "lifecycle: half-life of a profile fact's confidence while it is not "
        "reinforced, confirmed or recalled, in days (the slowest; the "
        "maintenance pass, docs/LIFECYCLE.md)")
AM_KNOB(double, confidence_half_life_preference_days, 150, 1, 100000,
        "lifecycle: half-life of a preference's, a constraint's or a rule's "
        "confidence, in days")
AM_KNOB(double, confidence_half_life_conclusion_days, 45, 1, 100000,
        "lifecycle: half-life of a task conclusion's or a pattern's confidence, "
        "in days")
AM_KNOB(double, confidence_half_life_temp_days, 10, 1, 100000,
        "lifecycle: half-life of any other (temporary) item's confidence, in "
        "days (the fastest)")
AM_KNOB(double, confidence_floor, 0.05, 0, 1,
        "lifecycle: a decayed confidence never falls below this")
AM_KNOB(double, counter_evidence, 0.15, 0, 1,
        "lifecycle: lowered from an item's decayed confidence while a "
        "conflicting statement of it waits for the user's answer "
        "(pending_confirm)")
AM_KNOB(double, forget_below, 0.4, 0, 1,
        "lifecycle: an active item whose decayed confidence is below this "
        "becomes candidate_forget (still recalled, asked about); 0: never")
AM_KNOB(double, forget_grace_days, 30, 0, 100000,
        "lifecycle: days a candidate_forget item waits for a repetition or a "
        "confirm before it is invalidated")
AM_KNOB(double, archive_heat_ratio, 0.3, 0, 1,
        "lifecycle: an active item whose heat is under this fraction of its "
        "base score ... (see archive_after_days) is archived; 0: never")
AM_KNOB(double, archive_after_days, 60, 0, 100000,
        "lifecycle: ... for at least this many days: it leaves recall until a "
        "reference brings it back")
AM_KNOB(double, ttl_temp_days, 14, 0, 100000,
        "a temporary item ends (leaves recall, keeps its history) this many days "
        "after it was stated, unless the API or its text gives its own end; said "
        "again, it lasts as long again; 0: never")
AM_KNOB(double, ttl_conclusion_days, 180, 0, 100000,
        "a task conclusion ends this many days after it was stated, unless the "
        "API or its text gives its own end; 0: never")
