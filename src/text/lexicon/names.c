/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/names.c -- the words of person, organisation and file names
 * (text/ent_misc.c): surnames and titles, the cues before an English name
 * and the capitalised words that are none, organisation suffixes and the
 * verbs a walk back stops at, file extensions.  The character sets
 * (surnames, name stops ...) are one string each, sorted by code point for
 * ent_in_set3; keep them sorted, and keep entities.c's han_triggers (the
 * Han characters that can start an entity) in step with them.
 */
#include "text/lexicon/lexicon.h"

/* Common single-character surnames (ambiguous ones such as 向, 和, 于, 米,
 * 从, 原, 区, 班 are left out on purpose). */
const char am__lex_zh_surnames[] =
    /* sorted by code point: in_set3 searches it */
    "丁万严乔付任伍何余侯俞倪冯刘卢史叶吕吴周唐夏姚姜孔孙孟宋尹崔常庞康廖张彭"
    "徐戴文方施易曹曾朱李杜杨林柳梁樊武段殷毛江汤汪沈洪温潘熊牛王田白石秦程罗"
    "肖胡芦苏范莫葛董蒋蔡薛袁覃许谢谭贺贾赖赵邓邢邱邵邹郑郝郭金钟钱闫陆陈陶雷"
    "韦韩顾颜马骆高魏鲁黄黎龙龚";

/* Two-character surnames. */
const char *const am__lex_zh_compound_surnames[] = {"欧阳", "司马", "上官",
                                                    "诸葛", "东方", "慕容",
                                                    NULL};

/* Titles after a surname: "张总", "王经理", "欧阳总监". */
const char *const am__lex_zh_titles[] = {
    "总经理", "总监", "总裁", "总工", "总", "经理", "老师", "主任", "医生",
    "律师", "教授", "博士", "先生", "女士", "小姐", "老板", "秘书", "主管",
    "部长", "处长", "局长", "科长", "院长", "校长", "书记", "董事长", "师傅",
    "阿姨", "大夫", "工程师", "会计", "同学", "警官", "助理", "姐", "哥",
    "叔", "董", NULL};

/* After "X总": words where 总 means "total/always", not "boss". */
const char am__lex_zh_not_boss[] =
    /* sorted by code point: in_set3 searches it */
    "之价体值共分务在局归得数有理监站算线结统而能表裁要觉计账部量金页额";

/* Characters that may follow "小王"/"老李" (verbs, particles, pronouns). */
const char am__lex_zh_name_follow[] =
    /* sorted by code point: in_set3 searches it */
    "也今他们会你做写刚去又发叫吗吧呀告呢和啊在她就已帮想我找把拿提明昨是来的"
    "看给要觉让讲说请负跟过还这那都问";

/* English titles before a name: "Dr. Lee". */
const char *const am__lex_en_titles[] = {"mr", "mrs", "ms", "dr", "prof",
                                         "miss", "mx", NULL};

/* Words after which a capitalised word names a person: "met Sarah". */
const char *const am__lex_en_person_cues[] = {
    "with", "from", "to", "ask", "asked", "tell", "told", "met", "meet",
    "call", "called", "email", "emailed", "cc", "ping", "thank", "thanks",
    "contact", "contacted", "invite", "invited", "introduce", "introduced",
    "remind", "text", "texted", "visit", "visited", "help", "helped", NULL};

/* Capitalised words that follow those cues and are not names.  Sorted:
 * searched with ent_word_sorted. */
const char *const am__lex_en_not_names[] = {
    "a", "africa", "african", "all", "also", "america", "american", "an",
    "and", "any", "april", "arabic", "asia", "asian", "at", "august",
    "australia", "australian", "be", "beijing", "berlin", "boston", "brazil",
    "british", "but", "california", "can", "canada", "canadian", "chicago",
    "china", "chinese", "christmas", "could", "dad", "dear", "december",
    "did", "do", "dutch", "each", "easter", "egypt", "england", "english",
    "europe", "european", "every", "everyone", "excel", "february", "florida",
    "for", "france", "french", "friday", "german", "germany", "god", "google",
    "greece", "greek", "halloween", "hawaii", "he", "hello", "her", "here",
    "hi", "his", "hong", "how", "i", "if", "in", "india", "indian", "ireland",
    "irish", "is", "it", "italian", "italy", "january", "japan", "japanese",
    "java", "july", "june", "just", "kong", "korea", "korean", "latin", "let",
    "lgbtq", "london", "los", "madrid", "march", "markdown", "may", "me",
    "mexican", "mexico", "mom", "monday", "mum", "my", "new", "no", "not",
    "november", "october", "of", "ok", "on", "or", "our", "paris", "please",
    "portuguese", "powerpoint", "python", "rome", "russian", "san",
    "saturday", "scotland", "seattle", "september", "shanghai", "she",
    "should", "singapore", "so", "some", "spain", "spanish", "sunday",
    "swedish", "sydney", "taiwan", "texas", "thailand", "thanksgiving",
    "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "thursday", "today", "tokyo", "tomorrow", "toronto", "tuesday",
    "uk", "us", "usa", "vegas", "vietnam", "was", "we", "wednesday", "what",
    "when", "where", "which", "who", "why", "will", "with", "word", "would",
    "yes", "yesterday", "york", "you", "your"};

/* "to X" names a person only after these: "talked to Anna", not "went to
 * Rome". */
const char *const am__lex_en_to_verbs[] = {
    "talk", "talked", "talking", "spoke", "speak", "speaking", "said",
    "say", "sent", "send", "give", "gave", "write", "wrote", "reply",
    "replied", "listen", "listened", "introduce", "introduced", "out",
    "report", "reported", "explain", "explained", "email", "emailed",
    "mention", "mentioned", "forward", "forwarded", "show", "showed",
    "married", "engaged", "next", "close", "belongs", "letter", "message",
    "thanks", "goodbye", "hello", "hi", NULL};

/* File extensions: "report.pdf". */
const char *const am__lex_file_exts[] = {
    "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "csv", "tsv", "md",
    "txt", "rtf", "odt", "ods", "odp", "pages", "key", "numbers", "json",
    "xml", "yaml", "yml", "html", "htm", "png", "jpg", "jpeg", "gif", "bmp",
    "svg", "webp", "tif", "tiff", "heic", "mp3", "wav", "m4a", "mp4", "mov",
    "avi", "mkv", "zip", "rar", "7z", "tar", "gz", "tgz", "py", "c", "h",
    "cpp", "js", "ts", "java", "go", "rs", "sql", "log", "ipynb", "epub",
    "sh", "ini", "toml", "eml", "msg", "vsdx", "xmind", "psd", "ai", "sketch",
    "fig", "db", "sqlite", "apk", "exe", "dmg", "iso", "mobi", "azw3", NULL};

/* Han characters that end a file or organisation name when walking back:
 * verbs, particles, pronouns, measure words. */
const char am__lex_name_stops[] =
    /* sorted by code point: in_set3 searches it */
    "一上下与个也买了于些从他们任份传位作你做入其再写几删到卖即去又及叫各名向"
    "和在她存它家对将就已帮并开张当往想我或才打找把拿收改放是有本来某查此每用"
    "由的看离等篇给翻职被要见让该说请读贵跟转过还这进送那都问附";

/* Chinese organisation suffixes, longest first where one ends another. */
const char *const am__lex_zh_org_suffixes[] = {
    "股份有限公司", "有限责任公司", "有限公司", "公司", "集团", "银行", "大学",
    "学院", "医院", "研究院", "研究所", "事务所", "基金会", "协会", "委员会",
    "工作室", "出版社", "电视台", "律所", "证券", "保险", "控股", NULL};

/* English organisation suffixes; the first seven (Inc ... Co) may take a
 * dot: keep them first. */
const char *const am__lex_en_org_suffixes[] = {
    "Inc", "Ltd", "Corp", "Corporation", "LLC", "GmbH", "Co", "Company",
    "Group", "Limited", "PLC", "Bank", "University", "Foundation", "Labs",
    "Technologies", NULL};

/* The first characters of am__lex_zh_org_suffixes, sorted by code point. */
const char am__lex_org_suffix_firsts[] = "事保公出医协基大委学工律控有电研股证银集";

/* Verbs that a walk back may take for the start of a name ("参加银行
 *招聘会"): cut off the front of an organisation name. */
const char *const am__lex_zh_org_verbs[] = {
    "参加", "分享", "提升", "加入", "进入", "成立", "创办", "创立", "收购",
    "投资", "前往", "来自", "属于", "负责", "联系", "合作", "就职", "任职",
    "入职", "离开", "访问", "拜访", "咨询", "申请", "通过", "经过", "办理",
    "开设", "设立", "注册", "成为", "作为", "所在", "位于", "对接", "服务",
    "代表", "举办", "主办", "承办", "探讨", "促进", "推动", "介绍", "支持",
    "携手", "联合", "邀请", "组织", "交流", "学习", "了解", "参观", "考察",
    "应聘", "招聘", "面试", NULL};
