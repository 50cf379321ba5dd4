/* SPDX-License-Identifier: Apache-2.0 */
/*
 * speaker.h -- who speaks in a transcript line and whom it greets: the
 * speaker label of "Emi: I love skiing" / "小王：好的", and the name a line
 * greets or thanks at its start ("elise: Hello Kate!" -> "Kate", "小王：张总
 * 你好" -> "张总").  The write path learns from the second that "Kate" is
 * what the other speaker is called (an alias); recall then treats a
 * question naming "Kate" as naming that speaker (recall/rank.c).
 */
#ifndef AM_TEXT_SPEAKER_H
#define AM_TEXT_SPEAKER_H

#include <stddef.h>

/* The speaker label of a line: the text before a leading ':' or '：' (at
 * most 40 bytes, at most three words or four non-Latin characters -- a
 * name, not a clause like "论坛的地点是：" -- no digits or other
 * punctuation), ASCII lower-cased into out (NUL-terminated when cap
 * allows).  Returns its length, 0 for none. */
size_t am__speaker_label(const char *s, char *out, size_t cap);

/* The name a line greets or thanks right after its speaker label ("Hi
 * Kate", "Thanks, Kate!", "Good morning Kate", "你好张总", "张总你好", "谢谢
 * 小王"), as written, into out (NUL-terminated).  A Latin name is one
 * capitalised word of 2-20 letters that is no form of address ("Hey
 * guys", "Hi there", "Thanks Mom"); a Chinese one 2-3 Han characters that
 * are no pronoun or group ("你好大家"). Returns its length, 0 for none
 * (also when the line has no speaker label). */
size_t am__greeted_name(const char *s, char *out, size_t cap);

#endif
