/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/synonyms.c -- the query expansion's word knowledge (recall/expand.c): near-word
 * groups, hyponyms (hobby -> sports ...), told forms of a reported
 * statement, repair cues ("what I really want to know"), the parts of a
 * conditioned question ("那个…的人", "the person whose …") and the clause
 * marks that end a condition.
 */
#include "text/lexicon/lexicon.h"

const char *const am__lex_expand_groups[][8] = {
    /* Chinese near-words */
    {"单子", "订单", "工单", NULL},
    {"行程", "出差", "差旅", "日程", NULL},
    {"抄送", "cc", NULL},
    {"周报", "工作总结", "weekly report", NULL},
    {"日报", "daily report", NULL},
    {"月报", "monthly report", NULL},
    {"开会", "会议", "例会", "meeting", NULL},
    {"尽快", "赶紧", "加急", "urgent", "asap", NULL},
    {"收尾", "完成", "交付", "弄完", NULL},
    {"预算", "经费", "budget", NULL},
    {"报价", "询价", "quote", "quotation", NULL},
    {"供应商", "厂商", "vendor", "supplier", NULL},
    {"合同", "协议", "contract", NULL},
    {"发票", "invoice", NULL},
    {"报销", "reimbursement", "expense", NULL},
    {"机票", "航班", "flight", NULL},
    {"酒店", "住宿", "hotel", NULL},
    {"电话", "手机", "phone", NULL},
    {"邮件", "邮箱", "email", "mail", NULL},
    {"表格", "excel", "spreadsheet", NULL},
    {"幻灯片", "ppt", "slides", NULL},
    {"老板", "领导", "上司", "boss", "manager", NULL},
    {"同事", "colleague", "coworker", NULL},
    {"生日", "birthday", NULL},
    {"孩子", "小孩", "儿子", "女儿", "kids", "children", NULL},
    {"医生", "大夫", "doctor", NULL},
    /* a person's attributes, as asked and as told ("联系电话" / "电话号码",
     * "教育背景" / "学历", "单位" / "公司") */
    {"联系电话", "电话号码", "手机号", "联系方式", "phone number", NULL},
    {"教育背景", "学历", "文化程度", "education", NULL},
    {"单位", "公司", "工作单位", NULL},
    /* units as written in either script ("158cm" / "158厘米") */
    {"厘米", "cm", "公分", NULL},
    {"公斤", "千克", "kg", NULL},
    {"公里", "千米", "km", NULL},
    {"毫升", "ml", NULL},
    /* English near-words */
    {"trip", "travel", "itinerary", "journey", NULL},
    {"kid", "child", "son", "daughter", NULL},
    {"job", "work", "career", "上班", "工作", "职业", NULL},
    {"hobby", "hobbies", "pastime", NULL},
    {"pet", "dog", "cat", NULL},
    {"car", "vehicle", NULL},
    {"movie", "film", NULL},
    {"book", "novel", NULL},
    {"sport", "sports", "game", NULL},
    {"mom", "mother", "妈妈", "母亲", "老妈", NULL},
    {"dad", "father", "爸爸", "父亲", "老爸", NULL},
    {"married", "wedding", "husband", "wife", NULL},
    {"girlfriend", "gf", NULL},
    {"boyfriend", "bf", NULL},
    {"dog", "dogs", "puppy", "puppies", "pup", "pups", "doggies", NULL},
    {"class", "classes", "course", "courses", "workshop", "lesson", "lessons", NULL},
    {"stressor", "stressors", "stress", "stressful", "stressed", NULL},
    {"name", "names", "called", NULL},
    /* English irregular verbs: the question asks in the base form ("when
     * did Nate win"), the turn tells in the past ("I just won another
     * tournament"); the stemmer joins regular forms only */
    {"win", "won", NULL}, {"meet", "met", NULL}, {"buy", "bought", NULL}, {"teach", "taught", NULL},
    {"catch", "caught", NULL}, {"fight", "fought", NULL}, {"sell", "sold", NULL},
    {"tell", "told", NULL}, {"think", "thought", NULL}, {"bring", "brought", NULL},
    {"build", "built", NULL}, {"send", "sent", NULL}, {"spend", "spent", NULL},
    {"lose", "lost", NULL}, {"begin", "began", "begun", NULL}, {"run", "ran", NULL},
    {"write", "wrote", "written", NULL}, {"choose", "chose", "chosen", NULL},
    {"drive", "drove", "driven", NULL}, {"eat", "ate", "eaten", NULL},
    {"fly", "flew", "flown", NULL}, {"forget", "forgot", "forgotten", NULL},
    {"grow", "grew", "grown", NULL}, {"ride", "rode", "ridden", NULL},
    {"sing", "sang", "sung", NULL}, {"swim", "swam", "swum", NULL},
    {"throw", "threw", "thrown", NULL}, {"wear", "wore", "worn", NULL},
    {"speak", "spoke", "spoken", NULL}, {"break", "broke", "broken", NULL},
    {"sleep", "slept", NULL}, {"feed", "fed", NULL}, {"hide", "hid", "hidden", NULL},
    {"steal", "stole", "stolen", NULL}, {"understand", "understood", NULL},
    {"wake", "woke", "woken", NULL}, {"draw", "drew", "drawn", NULL},
    {"give", "gave", "given", NULL}, {"take", "took", "taken", NULL}, {"go", "went", "gone", NULL},
    {"keep", "kept", NULL}, {"hold", "held", NULL}, {"pay", "paid", NULL}, {"hear", "heard", NULL},
    {"feel", "felt", NULL}, {"find", "found", NULL}, {"leave", "left", NULL},
    {"get", "got", "gotten", NULL}, {"make", "made", NULL}, {"see", "saw", "seen", NULL},
    {"know", "knew", "known", NULL}, {"become", "became", NULL}, {"come", "came", NULL},
    {"say", "said", NULL},
    {"tourney", "tournament", NULL},
    /* English compounds written open or closed ("road trip" / "roadtrip") */
    {"road trip", "roadtrip", NULL}, {"video game", "videogame", NULL},
    {"video games", "videogames", NULL}, {"ice cream", "icecream", NULL},
    {"work out", "workout", NULL}, {"home town", "hometown", NULL},
    {"boy friend", "boyfriend", NULL}, {"girl friend", "girlfriend", NULL},
    {"book shelf", "bookshelf", NULL}, {"camp fire", "campfire", NULL},
    {"photo shoot", "photoshoot", NULL}, {"cell phone", "cellphone", NULL},
    {"skate board", "skateboard", NULL}, {"snow board", "snowboard", NULL},
    {"sun set", "sunset", NULL}, {"sun rise", "sunrise", NULL},
};

/* Broader words -> narrower ones (one way): a question about someone's
 * "hobbies" or "pets" is answered by turns that name the thing itself
 * ("went swimming", "my turtles"), which share no word with it.  The
 * first string lists the broad words ('|' separated, as written in a
 * normalised query), the second what they expand to (space separated).
 * General world knowledge only; a narrow word never expands to the broad
 * one (that would flood every "swimming" question with "activities"). */
const char *const am__lex_expand_hyponyms[][2] = {
    {"activity|activities|hobby|hobbies|pastime|pastimes|interest|interests|passion|passions|leisure|"
     "for fun|free time|spare time|destress|de-stress|unwind",
     "swimming hiking camping painting drawing pottery reading writing cooking baking gardening running "
     "yoga dancing singing fishing photography guitar piano travel games knitting cycling biking surfing "
     "skiing volunteering pilates climbing skating bowling tennis golf chess crochet gaming gym"},
    {"爱好|兴趣|业余|消遣|休闲|放松|解压",
     "游泳 徒步 爬山 露营 画画 绘画 陶艺 阅读 看书 写作 烹饪 做饭 烘焙 园艺 跑步 瑜伽 跳舞 唱歌 钓鱼 摄影 "
     "吉他 钢琴 旅游 旅行 游戏 编织 骑行 滑雪 书法 下棋"},
    {"pet|pets|animal|animals", "dog dogs puppy cat cats kitten turtle turtles fish bird parrot hamster rabbit"},
    {"宠物|动物", "狗 小狗 狗狗 猫 小猫 猫咪 乌龟 金鱼 鹦鹉 仓鼠 兔子"},
    {"art|arts|artwork|artworks|artistic|creative",
     "painting paintings drawing sketch sculpture pottery canvas mural"},
    {"艺术|作品|创作", "画 绘画 素描 雕塑 陶艺 油画 水彩"},
    {"music|musical|instrument|instruments|band|bands|musician|musicians|concert|concerts",
     "guitar piano violin drums ukulele flute saxophone cello song songs singing album concert band"},
    {"音乐|乐器|乐队|演唱会", "吉他 钢琴 小提琴 鼓 笛子 古筝 二胡 唱歌 歌曲 演唱会 专辑"},
    {"book|books|reading|read|author|authors|literature",
     "novel novels series trilogy author read reading"},
    {"书|书籍|阅读|读物", "小说 看书 读书 作者 系列"},
    {"sport|sports|exercise|exercises|workout|workouts|fitness|athletic",
     "basketball football soccer tennis baseball running gym yoga swimming hiking cycling "
     "boxing kickboxing taekwondo martial weightlifting strength"},
    {"运动|锻炼|健身|体育", "篮球 足球 网球 羽毛球 乒乓球 跑步 健身房 瑜伽 游泳 爬山 骑行 拳击 跆拳道"},
    {"food|foods|dish|dishes|meal|meals|recipe|recipes|dessert|desserts|cuisine|treat|treats",
     "cook cooking bake baking cake pie cookies ice cream tart dinner lunch breakfast soup pizza pasta "
     "burger sushi salad fruit chicken noodles tacos sandwich"},
    {"美食|菜|菜肴|饭菜|甜点|甜品|食谱", "做饭 烹饪 烘焙 蛋糕 饼干 冰淇淋 早餐 午餐 晚餐 火锅 饺子 面条 汤 水果"},
    {"ailment|ailments|illness|illnesses|sickness|disease|diseases|health issue|health issues|"
     "health problem|health problems|injury|injuries",
     "covid flu cold fever headache migraine sick poisoning allergy allergic injured surgery hospital"},
    {"生病|疾病|病痛|身体不舒服|伤病", "感冒 发烧 头疼 头痛 过敏 受伤 住院 手术 新冠 生病"},
    {"country|countries|abroad",
     "america usa italy france spain germany japan china india mexico canada turkey england uk brazil "
     "greece korea thailand"},
    {"国家|出国|国外", "美国 意大利 法国 西班牙 德国 日本 中国 印度 墨西哥 加拿大 土耳其 英国 巴西 希腊 韩国 泰国"},
    {"family|families|relatives|relative",
     "kids children husband wife son daughter mom dad mother father parents brother sister grandma grandpa"},
    {"家人|家庭|家里人|亲戚|亲人",
     "孩子 老公 老婆 丈夫 妻子 儿子 女儿 爸爸 妈妈 父母 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶"},
    {"movie|movies|film|films|show|shows", "watched watch movie film series trilogy cinema theater"},
    {"电影|影视|剧", "看电影 电视剧 影院 纪录片"},
    {"game|games|gaming", "video game tournament chess board console play played"},
    {"游戏", "电竞 比赛 下棋 桌游 主机"},
    {"event|events", "parade festival conference concert workshop party fundraiser seminar "
                     "competition tournament fair show meetup"},
    {"活动", "节 展 会议 演唱会 比赛 聚会 讲座 研讨会 论坛 展览"},
    {"volunteer|volunteering|charity|charities|community service",
     "volunteer volunteering shelter donate donated donation fundraiser charity"},
    {"志愿|公益|慈善", "志愿者 捐款 捐赠 义工 募捐"},
    {"instrument|instruments", "guitar piano violin drums ukulele flute saxophone cello"},
    {"家电|电器", "空调 冰箱 洗衣机 电视 空气净化器 微波炉 扫地机器人 热水器 吸尘器 电饭煲"},
    {"美妆|化妆品|护肤品|护肤", "口红 粉底 面霜 精华 乳液 香水 面膜 眼霜 喷雾 精油 洗面奶 防晒"},
    {"手机", "iphone 华为 小米 oppo vivo 三星 荣耀"},
    {"景区|景点", "公园 博物馆 古镇 寺 山 湖 海滨"},
    {"vehicle|vehicles", "car truck bike motorcycle van"},
    {"martial art|martial arts", "karate judo taekwondo kickboxing kung fu boxing jiu-jitsu"},
    {"武术|功夫", "跆拳道 空手道 柔道 拳击 太极 散打"},
    {"writing|writings|write|writes|written|writer",
     "screenplay script poem poetry story stories novel journal blog article articles"},
    {"写作|写东西", "剧本 诗 小说 日记 博客 文章"},
    {"outdoor|outdoors|nature", "hiking camping beach park trail mountain lake forest"},
    {"户外|大自然", "徒步 露营 爬山 海滩 公园 湖 森林"},
};

/* How a person's attribute that a question asks by its name is told
 * ("那个生日是11月14日的人，姓名是什么？" is answered by "我叔叔叫王志强。",
 * "…兴趣爱好是什么？" by "我的上司挺喜欢运动的。"): when the question holds
 * the first string (a token of its analysis), the second search for a
 * bridge also looks for the others (index tokens: a single Han character
 * is a unigram), and a hit holding one of them holds what is asked.  Only
 * there: the bridge has already named the person, so "叫" or "岁" are
 * looked for among that person's turns, not the whole history. */
const char *const am__lex_expand_told_forms[][8] = {
    {"姓名", "叫", "名字", NULL},
    {"名字", "叫", "姓名", NULL},
    {"爱好", "喜欢", "爱", "爱好", NULL},
    {"兴趣", "喜欢", "爱", "爱好", NULL},
    {"作地", "上班", "工作", NULL}, /* 工作地 */
    {"年龄", "岁", NULL},
    {"身高", "厘米", "cm", NULL},
    {"学历", "毕业", "读到", "念到", "学历", NULL},
    {"背景", "毕业", "读到", "念到", "学历", NULL}, /* 教育背景 */
    {"职业", "做", "当", "干", NULL},
    {"职位", "做", "当", "干", NULL},
    {"家乡", "老家", "人", NULL},
    {"单位", "公司", "上班", NULL},
    /* English, as the index stems it ("called" -> "call") */
    {"name", "call", NULL},
    {"hobby", "like", "love", "enjoy", NULL},
    {"hobbi", "like", "love", "enjoy", NULL},
    {"age", "old", NULL},
    {"height", "tall", "cm", NULL},
    {"hometown", "from", "grew", NULL},
};

/* Self-corrections: a speaker who chats first and then says what they
 * really want to know ("不好意思，我真正想问的是：…？", "sorry, what I
 * actually want to know is …?") has asked from the cue on.  Written
 * normalised. */
const char *const am__lex_expand_repair_cues[] = {
    "真正想问", "真正的问题", "真正想知道", "真正想要了解", "真正想了解", "真正想弄清楚",
    "真正想搞清楚", "实际想问", "实际上我想问", "实际上我那个问题", "实际上我的问题", "其实想问",
    "其实我想问", "其实是想问", "其实是想搞清楚", "其实是想弄清楚", "其实是想知道", "我是想问",
    "我想问的是", "我想问,", "我想问:", "我想知道的是", "本来想问", "本来想说的是", "言归正传",
    "说正经的", "说正事", "回到正题",
    "what i really want to know", "what i really wanted to know", "what i really want to ask",
    "what i actually want to know", "what i actually wanted to ask", "what i meant to ask",
    "my real question", "my actual question", "the real question is", "what i'm really asking",
    NULL,
};

/* The parts of a condition, a relative clause that names a person by one
 * of their facts (recall/expand.c, am__query_condition): Chinese heads and
 * leads ("那个…的人"), English nouns, relatives and copulas ("the person
 * whose …"). */
const char *const am__lex_expand_cond_heads_zh[] = {"的人", "的那个人", "的那位", "的那些人", NULL};

const char *const am__lex_expand_cond_lead_zh[] = {"那个", "那位", "那", NULL};

const char *const am__lex_expand_cond_nouns_en[] = {"person", "people", "one", "man", "woman",
                                                    "guy", "friend", "relative", NULL};

const char *const am__lex_expand_cond_rel_en[] = {"whose", "who", "that", NULL};

const char *const am__lex_expand_copulas_en[] = {"is", "was", "are", "were", NULL};

/* The marks that end a condition's clause. */
const char *const am__lex_expand_marks[] = {",", ":", ";", "?", "，", "：", "；", "？", "、", NULL};
