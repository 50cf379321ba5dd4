/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ent_misc.c -- the light heuristics: persons ("张总", "王经理", "with Sarah
 * Lee", "Dr. Smith"), organisations ("阿里巴巴集团", "Acme Corp"), products
 * ("《三体》"), output formats ("PDF", "Excel表格", "要点式", "bullet
 * points"), and the first pass for URLs, file names and organisations.
 *
 * These are cues, not a name recogniser: a person needs a title or a cue
 * word, an organisation a suffix, a file name a known extension.
 */
#include <string.h>

#include "text/ent_internal.h"
#include "text/lexicon/lexicon.h"

/* ------------------------------------------------------------ Han sets */

static int is_han(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0xF900 && cp <= 0xFAFF);
}

#define in_set3 ent_in_set3

static size_t zh_surname(const ent_ctx *c, size_t i)
{
    size_t e = ent_lits(c, i, am__lex_zh_compound_surnames, NULL);
    if (e) return e;
    if (i + 3 > c->n || ent_at(c, i) < 0xE4) return 0;
    return in_set3(c->s + i, am__lex_zh_surnames) ? i + 3 : 0;
}

/* ----------------------------------------------------------- persons */

#define EN_NOT_NAMES (sizeof am__lex_en_not_names / sizeof *am__lex_en_not_names)

/* A capitalised name word "Sarah", "O'Brien", "Lee-Smith" at i. */
static size_t en_name_word(const ent_ctx *c, size_t i)
{
    unsigned b = ent_at(c, i);
    if (!(b >= 'A' && b <= 'Z') || !ent_wstart(c, i)) return 0;
    size_t j = i + 1;
    while (ent_at(c, j) >= 'a' && ent_at(c, j) <= 'z') j++;
    if ((ent_at(c, j) == '\'' || ent_at(c, j) == '-') &&
        ent_at(c, j + 1) >= 'A' && ent_at(c, j + 1) <= 'Z') {
        j += 2;
        while (ent_at(c, j) >= 'a' && ent_at(c, j) <= 'z') j++;
    }
    if (j - i < 2 || ent_isalnum(ent_at(c, j))) return 0;
    if (ent_word_sorted(c, i, am__lex_en_not_names, EN_NOT_NAMES) == j) return 0;
    return j;
}

/* "to X" names a person only after a verb of talking or giving ("went to
 * Rome" does not). */
static int en_to_cue_ok(const ent_ctx *c, size_t i)
{
    static const char *const to[] = {"to", NULL};
    if (!ent_prev_word(c, i, to)) return 1;
    size_t b = i;
    while (b > 0 && (c->s[b - 1] == ' ' || c->s[b - 1] == '\t')) b--;
    b -= 2; /* before "to" */
    return ent_prev_word(c, b, am__lex_en_to_verbs);
}

static size_t person(const ent_ctx *c, size_t a, size_t b, am__entity *e)
{
    e->type = AM_ENT_PERSON;
    ent_norm_copy(e, c->s, a, b);
    return b;
}

/* "张总", "王经理", "欧阳总监", "小王", "老李". */
static size_t zh_person_at(const ent_ctx *c, size_t i, am__entity *e)
{
    size_t j, s, t;
    uint32_t cp;
    if ((j = ent_lit(c, i, "小")) != 0 || (j = ent_lit(c, i, "老")) != 0) {
        /* only when what follows cannot continue a word: "小程序",
         * "老毛病", "小白" are not people */
        if ((s = zh_surname(c, j)) != 0) {
            ent_cp(c, s, &cp);
            if (!is_han(cp) || in_set3(c->s + s, am__lex_zh_name_follow))
                return person(c, i, s, e);
        }
    }
    if (!(s = zh_surname(c, i)) || !(t = ent_lits(c, s, am__lex_zh_titles, NULL)))
        return 0;
    /* One-character titles (总, 姐, 哥, 叔, 董) easily start a word:
     * "高总价", "王姐妹".  After 总 a short list says no; after the others
     * only a particle or verb may follow. */
    if (t - s == 3 && ent_cp(c, t, &cp) == 3 && is_han(cp)) {
        if (ent_lit(c, s, "总")) {
            if (in_set3(c->s + t, am__lex_zh_not_boss)) return 0;
        } else if (!in_set3(c->s + t, am__lex_zh_name_follow)) {
            return 0;
        }
    }
    return person(c, i, t, e);
}

/* A name word, and a second one right after a single blank. */
static size_t en_full_name(const ent_ctx *c, size_t i)
{
    size_t t = en_name_word(c, i), s, t2;
    if (!t) return 0;
    s = ent_sp(c, t);
    if (s == t + 1 && (t2 = en_name_word(c, s)) != 0) return t2;
    return t;
}

size_t ent_person_at(const ent_ctx *c, size_t i, am__entity *e)
{
    unsigned b = ent_at(c, i);
    size_t j, t;
    if (b >= 0xE4) return zh_person_at(c, i, e);
    if (!(b >= 'A' && b <= 'Z') || !ent_wstart(c, i)) return 0;
    /* "Dr. Smith", "Mr Wang" */
    if ((j = ent_words(c, i, am__lex_en_titles, NULL)) != 0) {
        size_t k = ent_at(c, j) == '.' ? j + 1 : j, s = ent_sp(c, k);
        if (s > k && (t = en_full_name(c, s)) != 0) return person(c, i, t, e);
        return 0;
    }
    /* "with Sarah Lee", "ask Mike", "talked to Tom" */
    if (!en_name_word(c, i) || !ent_prev_word(c, i, am__lex_en_person_cues) ||
        !en_to_cue_ok(c, i))
        return 0;
    return person(c, i, en_full_name(c, i), e);
}

/* ----------------------------------------------------------- formats */

size_t ent_format_at(const ent_ctx *c, size_t i, am__entity *e)
{
    /* Case-insensitive English words; a leading '^' means "capital first
     * letter required" (Excel, Word: also ordinary words). */
    static const struct { const char *w; const char *norm; } en[] = {
        {"pdf", "pdf"}, {"^excel", "xlsx"}, {"xlsx", "xlsx"}, {"xls", "xlsx"},
        {"spreadsheet", "xlsx"}, {"spreadsheets", "xlsx"}, {"^word", "docx"},
        {"docx", "docx"}, {"ppt", "pptx"}, {"pptx", "pptx"},
        {"powerpoint", "pptx"}, {"slides", "pptx"}, {"markdown", "md"},
        {"csv", "csv"}, {"json", "json"}, {"html", "html"}, {"txt", "txt"},
        {"bullets", "bullets"}, {"mindmap", "mindmap"}, {"tabular", "table"}};
    static const struct { const char *a, *b, *norm; } en2[] = {
        {"bullet", "points", "bullets"}, {"bullet", "point", "bullets"},
        {"bullet", "list", "bullets"},   {"bulleted", "list", "bullets"},
        {"mind", "map", "mindmap"},      {"plain", "text", "txt"},
        {"table", "format", "table"},    {"slide", "deck", "pptx"}};
    static const char *const zh[] = {"表格", "电子表格", "要点式", "要点形式",
                                     "分点", "条目式", "列表式", "列表形式",
                                     "思维导图", "脑图", "图表", "纯文本",
                                     "幻灯片", "演示文稿", NULL};
    static const char *const zh_norm[] = {"table", "xlsx", "bullets", "bullets",
                                          "bullets", "bullets", "bullets",
                                          "bullets", "mindmap", "mindmap",
                                          "chart", "txt", "pptx", "pptx"};
    static const char *const tails[] = {"文件", "文档", "格式", "版本", "版",
                                        "形式", "表格", "表", NULL};
    unsigned b = ent_at(c, i);
    const char *norm = NULL;
    size_t end = 0;
    int k;
    if (b >= 0xE4) {
        if ((end = ent_lits(c, i, zh, &k)) != 0) norm = zh_norm[k];
    } else if (ent_isalpha(b) && ent_wstart(c, i) &&
               strchr("bcdehjmpstwxBCDEHJMPSTWX", (int)b)) {
        for (size_t n = 0; n < sizeof en2 / sizeof *en2 && !end; n++) {
            size_t a = ent_word(c, i, en2[n].a), s;
            if (a && (s = ent_sp(c, a)) > a && (s = ent_word(c, s, en2[n].b))) {
                end = s;
                norm = en2[n].norm;
            }
        }
        for (size_t n = 0; n < sizeof en / sizeof *en && !end; n++) {
            const char *w = en[n].w;
            if (w[0] == '^') {
                if (!(b >= 'A' && b <= 'Z')) continue;
                w++;
            }
            if ((end = ent_word(c, i, w)) != 0) norm = en[n].norm;
        }
        /* "PDFs", "PPTs" */
        if (!end) {
            static const char *const pl[] = {"PDFs", "PPTs", "CSVs", NULL};
            static const char *const pln[] = {"pdf", "pptx", "csv"};
            if ((end = ent_lits(c, i, pl, &k)) != 0 && ent_wend(c, end))
                norm = pln[k];
            else
                end = 0;
        }
    }
    if (!end) return 0;
    /* "PDF文件", "Excel表格", "Word文档". */
    size_t t = ent_lits(c, end, tails, &k);
    if (t && (k < 6 || strcmp(norm, "xlsx") == 0)) end = t;
    e->type = AM_ENT_FORMAT;
    strcpy(e->norm, norm);
    return end;
}

/* ----------------------------------------------------------- products */

size_t ent_product_at(const ent_ctx *c, size_t i, am__entity *e)
{
    size_t j = ent_lit(c, i, "《");
    if (!j) return 0;
    for (size_t k = j; k < c->n && k - j <= 90;) {
        if (ent_lit(c, k, "》")) {
            if (k == j) return 0;
            e->type = AM_ENT_PRODUCT;
            ent_norm_copy(e, c->s, j, k);
            return k + 3;
        }
        unsigned ch = ent_at(c, k);
        if (ch == '\n' || ch == '\r' || ent_lit(c, k, "《")) return 0;
        uint32_t cp;
        k += (size_t)ent_cp(c, k, &cp);
    }
    return 0;
}

/* ---------------------------------------------------------- first pass */

static size_t url_at(const ent_ctx *c, size_t i)
{
    static const char *const schemes[] = {"https://", "http://", "ftp://",
                                          "www.", NULL};
    unsigned b = ent_lower(ent_at(c, i));
    if ((b != 'h' && b != 'w' && b != 'f') || !ent_wstart(c, i)) return 0;
    size_t j = 0;
    for (int k = 0; schemes[k] && !j; k++) {
        size_t l = strlen(schemes[k]), m;
        for (m = 0; m < l; m++)
            if (ent_lower(ent_at(c, i + m)) != (unsigned char)schemes[k][m]) break;
        if (m == l) j = i + l;
    }
    if (!j) return 0;
    size_t s = j;
    int parens = 0;
    while (j < c->n) {
        unsigned ch = ent_at(c, j);
        if (ch <= 0x20 || ch >= 0x7F || strchr("<>\"'`{}|\\^", (int)ch)) break;
        if (ch == '(') parens++;
        if (ch == ')') parens--;
        j++;
    }
    while (j > s) { /* trailing punctuation belongs to the sentence */
        unsigned ch = (unsigned char)c->s[j - 1];
        if (ch == ')' && parens < 0) { parens++; j--; continue; }
        if (!strchr(".,;:!?]", (int)ch)) break;
        j--;
    }
    if (j <= s || !ent_isalnum((unsigned char)c->s[s])) return 0;
    return j;
}

/* Walk back from i over a name: ASCII [A-Za-z0-9_-] (and '.', '/' for
 * files), and up to max_han Han characters not in name_stops. */
static size_t walk_back(const ent_ctx *c, size_t i, size_t lo, int file,
                        int max_han)
{
    size_t j = i;
    int han = 0;
    while (j > lo) {
        unsigned ch = (unsigned char)c->s[j - 1];
        if (ch < 0x80) {
            if (ent_isalnum(ch) || ch == '_' || ch == '-' ||
                (file && (ch == '.' || ch == '/' || ch == '~')) ||
                (!file && ch == '&')) {
                j--;
                continue;
            }
            break;
        }
        if (j - lo < 3 || han >= max_han) break;
        size_t k = j - 3;
        uint32_t cp;
        ent_ctx sub = *c;
        sub.n = j;
        if (ent_cp(&sub, k, &cp) != 3 || !is_han(cp)) break;
        /* "上海", "海上": 上 is a stop, except in place names */
        if (in_set3(c->s + k, am__lex_name_stops) &&
            !(memcmp(c->s + k, "上", 3) == 0 && j + 3 <= i &&
              memcmp(c->s + j, "海", 3) == 0))
            break;
        j = k;
        han++;
    }
    /* Do not start a name with punctuation. */
    while (j < i && !ent_isalnum(ent_at(c, j)) && ent_at(c, j) < 0x80) j++;
    return j;
}

/* A file name whose ".ext" starts at i. */
static int file_at(const ent_ctx *c, size_t i, size_t lo, am__entity *e)
{
    int k;
    if (i == 0 || i <= lo) return 0;
    size_t end = ent_words(c, i + 1, am__lex_file_exts, &k);
    if (!end) return 0;
    /* ".pdf" or ".PDF", not ".Go" ("Done.Go home") */
    int lower = 0, upper = 0;
    for (size_t x = i + 1; x < end; x++) {
        unsigned ch = ent_at(c, x);
        lower |= ch >= 'a' && ch <= 'z';
        upper |= ch >= 'A' && ch <= 'Z';
    }
    if (lower && upper) return 0;
    /* "report.pdf.zip": let the last extension win */
    if (ent_at(c, end) == '.' && ent_isalnum(ent_at(c, end + 1))) return 0;
    unsigned p = (unsigned char)c->s[i - 1];
    if (p < 0x80 && !ent_isalnum(p) && p != '_' && p != '-') return 0;
    size_t s = walk_back(c, i, lo, 1, 12);
    if (s >= i) return 0;
    /* "Node.js", "Vue.js": a library, not a file */
    if (end - i == 3 && ent_word(c, i + 1, "js") && ent_at(c, s) >= 'A' &&
        ent_at(c, s) <= 'Z')
        return 0;
    /* A version or number is no name: "v2.0.txt" is fine, "3.5.md" too;
     * but "e.g" style stubs ("e.md" in prose) need two name bytes or Han. */
    if (i - s < 2 && ent_isalpha(ent_at(c, s)) && (end - i - 1) <= 1) return 0;
    e->type = AM_ENT_FILE;
    e->start = s;
    e->end = end;
    e->from = e->to = AM_TIME_NONE;
    ent_norm_copy(e, c->s, s, end);
    return 1;
}

static int org_at(const ent_ctx *c, size_t i, size_t lo, am__entity *e)
{
    unsigned b = ent_at(c, i);
    size_t end, s, v;
    if (b >= 0xE4) {
        if (!(end = ent_lits(c, i, am__lex_zh_org_suffixes, NULL))) return 0;
        s = walk_back(c, i, lo, 0, 10);
        /* the name starts after the last verb in it */
        for (size_t k = s; k < i;) {
            if ((v = ent_lits(c, k, am__lex_zh_org_verbs, NULL)) != 0 && v <= i) {
                s = k = v;
                continue;
            }
            uint32_t cp;
            k += (size_t)ent_cp(c, k, &cp);
        }
        if (s >= i) return 0;
        /* at least two Han characters or an ASCII name */
        if (i - s < 6 && ent_at(c, s) >= 0x80) return 0;
    } else if (b >= 'A' && b <= 'Z' && ent_wstart(c, i)) {
        int k;
        if (!(end = ent_words(c, i, am__lex_en_org_suffixes, &k))) return 0;
        if (ent_at(c, end) == '.' && k <= 6) end++; /* the first seven */
        /* Capitalised words before it: "Acme Corp", "Acme Widgets, Inc." */
        size_t j = i, first = i;
        int words = 0;
        while (words < 4 && j >= lo + 2) {
            size_t k2 = j;
            if (c->s[k2 - 1] == ' ' && k2 >= 2 && c->s[k2 - 2] == ',' && words == 0)
                k2 -= 2;
            else if (c->s[k2 - 1] == ' ')
                k2 -= 1;
            else
                break;
            size_t w = k2;
            while (w > lo && (ent_isalnum((unsigned char)c->s[w - 1]) ||
                              c->s[w - 1] == '&' || c->s[w - 1] == '-'))
                w--;
            if (w == k2 || !(c->s[w] >= 'A' && c->s[w] <= 'Z')) break;
            if (ent_word_sorted(c, w, am__lex_en_not_names, EN_NOT_NAMES) == k2 &&
                !ent_word(c, w, "new"))
                break;
            first = w;
            j = w;
            words++;
        }
        if (!words) return 0;
        s = first;
    } else {
        return 0;
    }
    e->type = AM_ENT_ORG;
    e->start = s;
    e->end = end;
    e->from = e->to = AM_TIME_NONE;
    ent_norm_copy(e, c->s, s, end);
    return 1;
}

int ent_prepass_at(const ent_ctx *c, size_t i, size_t lo, am__entity *e)
{
    unsigned b = ent_at(c, i);
    size_t end;
    if (b == '.') return file_at(c, i, lo, e);
    if ((end = url_at(c, i)) != 0) {
        e->type = AM_ENT_URL;
        e->start = i;
        e->end = end;
        e->from = e->to = AM_TIME_NONE;
        ent_norm_copy(e, c->s, i, end);
        return 1;
    }
    if (b >= 0xE4 && b < 0xF0 && i + 3 <= c->n &&
        ent_in_set3(c->s + i, am__lex_org_suffix_firsts))
        return org_at(c, i, lo, e);
    if (b >= 'A' && b <= 'Z') return org_at(c, i, lo, e);
    return 0;
}
