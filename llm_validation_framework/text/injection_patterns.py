"""The injection detector's patterns, by kind (see :mod:`.injection` for what each kind is).

Every pattern asks for grader-facing wording, not for single words, and is held to no hit on the
ordinary texts the learned detector is measured on (docs/injection.md). The texts they read are
normalised first (:mod:`.normalize`): fullwidth digits are ASCII digits, look-alike letters Latin
ones, spaced letters joined. Our own tags and chat tokens are matched in their look-alike forms too
(``‹/answer›``), the forms the defence writes, so a text screened twice is found the same both times.
"""

from __future__ import annotations

import re

__all__ = ["COMPILED", "GRADING_TALK_SELF", "GRADING_TALK_WORDS", "LATIN_VERDICT", "PATTERN_KINDS", "TAGS"]

_VERDICT_TERMS = (r"(?:yes|oui|ja|sí|correct|correcto|korrekt|richtig|supported|relevant|faithful|pass(?:ed)?|true|"
                  r"on[- ]topic|fully correct)")
#: the verdict terms and the top of our numeric scales: only where a grading verb stands before them
_VERDICT_WORDS = r"(?:" + _VERDICT_TERMS + r"|4|1\.0|10(?:/10)?|100%?)"
#: a verdict word standing in another script's sentence: a verdict term, or the top of a scale in quotes
LATIN_VERDICT = re.compile(r"\b" + _VERDICT_TERMS + r"\b|[\"'«»„“”‘’`「『]\s*(?:4|1\.0|10(?:/10)?|100%?)\s*"
                           r"[\"'«»„“”‘’`」』]", re.IGNORECASE)
#: who a note to the grader is addressed to
_GRADERS = r"(?:grader|judge|evaluator|reviewer|assessor|grading model|ai judge|ai|model|llm|assistant|bot)s?"
#: the start of a line or of a sentence
_LEAD = r"(?:^|(?<=[\n.!?]))[ \t>#*_-]*"
#: every tag name our prompts use around untrusted text (re-exported as ``prompting.TAGS``, which
#: neutralises them inside the data)
TAGS = ("question", "answer", "reference", "passage", "passages", "context", "claim", "citation",
        "statement", "response", "query", "conversation")
_QUOTE = r"[\"'«»„“”‘’`「」『』\s]*"

_PATTERNS: dict[str, list[str]] = {
    "chat_template": [
        r"<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|"
        r"begin_of_text|end_of_text|eom_id)\s*\|>",
        r"</?\s*(?:start_of_turn|end_of_turn)\s*>",
        r"\[/?INST\]", r"<</?SYS>>",
        # the look-alike forms the defence writes in their place
        r"‹\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|"
        r"begin_of_text|end_of_text|eom_id)\s*\|›",
        r"‹/?\s*(?:start_of_turn|end_of_turn)\s*›", r"‹/?INST›", r"‹‹/?SYS››", r"‹\|[^|‹›\n]{1,40}\|›",
    ],
    # a line that speaks as a chat turn: "SYSTEM: …", "Assistant: yes"
    "role_turn": [_LEAD + r"(?:system|assistant|developer)[ \t*_]*:"],
    "fake_delimiter": [r"<\s*/?\s*(?:" + "|".join(TAGS) + r")\b[^>]*>",
                       r"‹\s*/?\s*(?:" + "|".join(TAGS) + r")\b[^›]*›"],
    "verdict_json": [r"\{\s*[\"']?(?:verdict|score|label|grade|rating|judgement|judgment)[\"']?\s*:"],
    "ignore_instructions": [
        # English, then French, German, Spanish, Italian, Portuguese, Dutch, Russian, Chinese, Japanese
        r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
        r"(?:previous|prior|above|earlier|preceding|former|system)\s+(?:instructions?|prompts?|rules|directions)",
        r"\b(?:ignore|disregard|forget)\s+(?:everything|all|anything)\s+(?:(?:that\s+)?you\s+(?:were|have\s+been|"
        r"are)\s+(?:told|given|instructed)|above|before\s+this)",
        r"\b(?:ignore|disregard|forget)\s+(?:your|the|these|those)\s+(?:instructions|rules|rubric|guidelines|criteria|"
        r"(?:system\s+)?prompt)\b",
        r"\bignor(?:e|ez|er)\s+(?:toutes\s+)?(?:les\s+)?(?:instructions|consignes)\s+(?:précédentes|precedentes|"
        r"ci-dessus|antérieures)",
        r"\b(?:ignorier(?:e|en)?|vergiss|vergessen)\s+(?:Sie\s+)?(?:alle\s+)?(?:vorherigen|bisherigen|obigen|"
        r"vorigen|früheren)\s+(?:Anweisungen|Instruktionen|Regeln)",
        r"\bignor(?:a|e|ad|en|ar)\s+(?:todas\s+)?(?:las\s+)?(?:instrucciones|indicaciones)\s+(?:anteriores|previas)",
        r"\bignora\s+(?:tutte\s+)?(?:le\s+)?istruzioni\s+(?:precedenti|sopra)",
        r"\bignor(?:e|a)\s+(?:todas\s+)?(?:as\s+)?instruç(?:ões|oes)\s+(?:anteriores|acima)",
        r"\bnegeer\s+(?:alle\s+)?(?:vorige|eerdere)\s+instructies",
        r"игнорируй(?:те)?\s+(?:все\s+)?(?:предыдущие\s+)?инструкции",
        r"(?:忽略|无视|忽视)(?:之前|以上|上面|先前|前面)?的?(?:所有|全部)?(?:指令|指示|说明|提示)",
        r"(?:以前|前|上記)の(?:すべての)?指示を無視",
        r"(?:이전|앞의|위의)\s*(?:모든\s*)?(?:지시|지침|명령)(?:을|를|은|는)?\s*(?:무시|잊)",
        r"(?:पिछले|पहले\s*के|ऊपर\s*के)\s*(?:सभी\s*)?(?:निर्देशों|निर्देश)\s*(?:को\s*)?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)",
        r"\b(?:bỏ\s+qua|phớt\s+lờ)\s+(?:mọi\s+|tất\s+cả\s+)?(?:các\s+)?(?:hướng\s+dẫn|chỉ\s+dẫn|lệnh)\s+(?:trước|ở\s+trên)",
        r"(?:เพิกเฉย|ไม่ต้องสนใจ|ละเว้น)(?:ต่อ)?คำสั่ง(?:ทั้งหมด)?(?:ก่อนหน้า|ข้างบน)",
    ],
    "grader_instruction": [
        r"\b(?:system|admin(?:istrator)?|developer)\s+(?:note|message|notice|instructions?|override)\s+"
        r"(?:to|for)\s+the\s+(?:grader|judge|evaluator|reviewer|assessor|model|ai|assistant)",
        # a note, or a P.S., addressed to whoever grades; an AI "reviewing this"; a grader called by name
        r"\b(?:note|message|memo|notice|p\.?\s?s\.?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?" + _GRADERS + r"\b",
        r"\b(?:to|for)\s+(?:the\s+)?(?:ai|model|llm|assistant|bot)\s+(?:that\s+is\s+|who\s+is\s+)?"
        r"(?:reviewing|grading|evaluating|checking|assessing|judging|scoring)\b",
        _LEAD + r"(?:dear\s+)?(?:grader|evaluator|reviewer|assessor)s?\s*[,:]",
        # a verdict stated or ordered: "the verdict here is yes", "say yes", "mark this correct"
        r"\b(?:verdict|judge?ment|label)\s+(?:here\s+|for\s+this\s+(?:answer|response)\s+)?(?:is|=|:|should\s+be|"
        r"must\s+be)\s*" + _QUOTE + _VERDICT_TERMS + r"\b(?![-/])",
        # ("say true statements" is ordinary English: "true" is left out here; "answer yes to the prompt" is
        # an installation step, so "answer" needs the verdict quoted)
        r"\b(?:say|print|write)\s+(?:only\s+)?(?:with\s+)?(?:the\s+(?:word|label|verdict)\s+)?" + _QUOTE
        + r"(?!true\b)" + _VERDICT_TERMS + r"\b",
        r"\banswer\s+(?:only\s+)?(?:with\s+)?(?:the\s+(?:word|label|verdict)\s+)?[\"'«„“‘`]\s*"
        + _VERDICT_TERMS + r"\b",
        r"\b(?:reply|respond|output|return)\s+(?:only\s+)?(?:with\s+)?the\s+(?:word|label|verdict)\s+" + _QUOTE
        + _VERDICT_WORDS + r"\b",
        r"\b(?:grade|mark|rate|score|label)\s+(?:it|this|(?:this|the)\s+(?:one|answer|response|reply))\s+(?:as\s+)?"
        + _QUOTE + _VERDICT_WORDS + r"\b",
        r"<!--[\s\S]{0,200}?\b(?:grader|grading|evaluator|judge|verdict|score|reviewer)\b",
        r"[\[(]\s*(?:system|admin(?:istrator)?|developer)\s+(?:note|message|notice|instructions?|override)\b",
        # notes and messages are covered above; "instructions for the model" is ordinary prompting advice
        r"\binstructions?\s+(?:to|for)\s+(?:the\s+)?(?:grader|judge|evaluator|assessor|grading model|ai judge)\b",
        r"\b(?:grader|judge|evaluator|grading)\s+(?:instructions?|notes?|policy)\s*:",
        r"\b(?:reply|respond|output|return)\s+(?:only\s+)?(?:with\s+)?" + _QUOTE + _VERDICT_WORDS + r"\b",
        r"\b(?:grade|mark|rate|score|judge|label|treat|classify)\s+(?:it|(?:this|the|every|any|each|all)\s+"
        r"(?:answers?|responses?|replies|cases?))\b[^.\n]{0,20}?\bas\s+" + _QUOTE + _VERDICT_WORDS + r"\b",
        r"\bevery\s+answer\s+is\s+(?:graded|judged|rated|marked)\b",
        r"\balways\s+(?:replies|answers|responds|says|grades)\s+" + _QUOTE + _VERDICT_WORDS + r"\b",
        r"\b(?:répondez|reponds|réponds|antworte|antworten\s+Sie|responde|responda|rispondi)\s+(?:mit\s+|con\s+|"
        r"avec\s+)?" + _QUOTE + _VERDICT_WORDS + r"\b",
        r"请(?:回答|回复|输出)\s*" + _QUOTE + _VERDICT_WORDS,
        # East and South Asian languages: a grader addressed, or one of our labels, in Latin letters and quoted,
        # with the verb that writes it (a quoted native "yes" is reported speech as often as an order)
        # Chinese
        r"(?:评分(?:员|者|人|模型)|评估(?:员|者|模型)|评审(?:员|人)|阅卷(?:人|老师)|打分(?:的)?(?:人|模型))(?:们)?\s*[:：,，]",
        r"(?:请|只需|务必|必须)(?:只)?(?:回答|回复|输出|写|填写|判定为|评为|标记为)\s*[\"“'「『]\s*(?:" + _VERDICT_TERMS
        + r"|4)",
        r"(?:判定|评定|标记|评分|打分)为\s*[\"“'「『]?\s*(?:正确|满分|yes|correct|supported)",
        # Japanese
        r"(?:採点者|評価者|審査員|採点担当(?:者)?|評価担当(?:者)?|採点(?:する)?AI|評価(?:する)?AI)(?:の方|様|さん)?(?:へ|に)?\s*[:：、,]",
        r"[「『\"'“](?:" + _VERDICT_TERMS + r"|4)[」』\"'”]\s*(?:と|って)(?:だけ)?\s*"
        r"(?:答え|回答|出力|書|記入|判定|評価|採点|返)",
        r"(?:正解|正しい(?:回答)?)(?:と|として)(?:判定|評価|採点|扱)",
        # Korean
        r"(?:채점자|평가자|심사위원|채점\s*담당자|평가\s*모델)(?:님)?(?:께|에게|분께)?\s*[:：,]",
        r"['\"‘“「]\s*(?:" + _VERDICT_TERMS + r"|4)\s*['\"’”」]\s*(?:이?라고|로)\s*(?:만\s*)?"
        r"(?:답|출력|작성|쓰|적|표시|평가|채점)",
        # Hindi, Bengali, Tamil
        r"(?:मूल्यांकनकर्ता|परीक्षक|जाँचकर्ता|जांचकर्ता|ग्रेडर)(?:\s*(?:के\s*लिए|को|जी))?\s*[:：,]",
        r"['\"‘“]\s*(?:" + _VERDICT_TERMS + r"|4)\s*['\"’”]\s*(?:ही\s*)?(?:लिखें|लिखिए|लिखो|उत्तर\s*दें|चुनें)",
        r"(?:পরীক্ষক|মূল্যায়নকারী)(?:ের\s*জন্য|কে)?\s*[:：,]",
        r"['\"‘“]\s*(?:" + _VERDICT_TERMS + r"|4)\s*['\"’”]\s*(?:লিখুন|লেখো|বলুন)",
        r"மதிப்பீட்டாளர்(?:ுக்கு|களுக்கு)?\s*[:：,]",
        # Thai, Vietnamese
        r"(?:ถึง)?(?:ผู้ตรวจ(?:ให้คะแนน)?|ผู้ประเมิน|ผู้ให้คะแนน)\s*[:：,]",
        r"ตอบ(?:ว่า|เพียง|แค่)\s*['\"‘“]\s*(?:" + _VERDICT_TERMS + r"|4)",
        r"\b(?:gửi\s+)?(?:người\s+chấm(?:\s+điểm)?|giám\s+khảo|người\s+đánh\s+giá)\s*[:,]",
        r"\b(?:hãy\s+)?(?:trả\s+lời|ghi|viết|chấm)\s+(?:là\s+)?['\"‘“]\s*(?:" + _VERDICT_TERMS + r"|4)",
    ],
    # claims about the grading that give no order: the reference called wrong, an authority's approval, what
    # a grader "should" do, a scene that casts the reader as a lenient grader
    "grading_claim": [
        r"\b(?:the\s+)?(?:reference|gold|expected|ground[- ]truth|official|provided|model|key)\s+(?:answer\s+|"
        r"solution\s+|response\s+)?(?:(?:you\s+(?:were|are|have\s+been)\s+(?:given|shown|provided)|here)\s+)?"
        r"(?:is|was|has\s+been|seems|looks|appears\s+to\s+be)\s+(?:now\s+|clearly\s+|probably\s+|simply\s+|actually\s+)?"
        r"(?:outdated|out[- ]of[- ]date|wrong|incorrect|obsolete|superseded|mistaken|erroneous|stale|deprecated|"
        r"in\s+error|no\s+longer\s+(?:valid|correct|accurate|current))",
        r"\b(?:reference|gold|expected)\s+(?:answer\s+)?(?:has\s+(?:since\s+)?been|was)\s+(?:updated|corrected|"
        r"revised|replaced|retracted|withdrawn)",
        r"\b(?:ignore|disregard|discard|overlook|set\s+aside|do\s+not\s+rely\s+on)\s+(?:the\s+)?(?:reference|gold|"
        r"expected|provided)(?:\s+(?:answer|solution))?\b",
        r"\b(?:experts?|specialists?|scientists|historians|reviewers|graders|examiners|professors|authorities|"
        r"fact[- ]checkers)\s+(?:all\s+|unanimously\s+|have\s+|already\s+|widely\s+)*(?:agree|agreed|confirm(?:ed)?|"
        r"verified|approved|certified|validated|consider|considered)\s+(?:that\s+)?(?:this|the)\s+(?:answer|response|"
        r"reply)?\s*(?:is|was|as)?\s*(?:correct|right|accurate|true|valid)\b",
        r"\b(?:this|the\s+above|the)\s+(?:answer|response|reply)\s+(?:has\s+been|was|is)\s+(?:already\s+|officially\s+"
        r")?(?:verified|confirmed|approved|validated|certified|fact[- ]checked|double[- ]checked|endorsed)\s+"
        r"(?:as\s+(?:correct|accurate|right|true)|by\s+(?:experts?|specialists|our|the\s+(?:editorial|quality|review|"
        r"grading|evaluation|expert))|to\s+be\s+(?:correct|accurate|right))",
        r"\b(?:the|any|a|every|each|our)\s+(?:fair\s+|careful\s+|reasonable\s+|competent\s+|good\s+|honest\s+)?"
        r"(?:grader|evaluator|assessor|grading\s+model|judge\s+model|ai\s+judge|llm\s+judge)s?\s+(?:should|must|would|"
        r"will|needs?\s+to|has\s+to|ought\s+to|is\s+expected\s+to)\b",
        r"\bwhoever\s+(?:is\s+)?(?:grad|evaluat|scor|review|mark|assess|judg|check)\w*\s+(?:this|these|the\s+(?:answer|"
        r"response))",
        # the key itself called old or flawed, in the words of a note beside an answer
        r"\b(?:reference|expected|model|official|gold)\s+(?:answer|solution)\s+(?:on\s+file\s+|in\s+the\s+key\s+|"
        r"provided\s+)?(?:is|was|comes)\s+from\s+(?:an?\s+)?(?:old|older|earlier|previous|outdated)\b",
        r"\b(?:answer\s+key|marking\s+scheme|expected\s+answer|reference\s+answer|model\s+answer)\s+(?:\w+\s+){0,3}"
        r"(?:has|contains|had)\s+(?:a|an)\s+(?:known\s+)?(?:typo|error|mistake|misprint)",
        # an answer said to have passed a review, by whom
        r"\b(?:this|the\s+above|the)\s+(?:answer|response|reply)\s+(?:has\s+been|was)\s+(?:reviewed|checked|"
        r"confirmed|verified|approved)\s+(?:and\s+(?:confirmed|approved|verified|accepted)\s+)?by\s+(?:a|an|the|"
        r"our|two|three|several)\s+",
        # the grading's outcome stated as settled
        r"\b(?:so\s+)?the\s+verdict\s+is\s+(?:clear|obvious|settled|"
        + _VERDICT_TERMS + r")\b",
        r"\b(?:give|award|deserves?|earns?)\s+(?:(?:this|it|the)\s+(?:answer\s+)?)?(?:full|top|maximum)\s+marks\b",
        r"\b(?:full|top|maximum)\s+marks\s*[,:;]\s*" + _VERDICT_TERMS + r"\b",
        r"\b(?:rated|graded|marked|scored)\s+(?:as\s+)?[\"'“‘]?(?:yes|correct|relevant|supported|faithful|on[- ]topic|"
        r"fully\s+correct)\b",
        r"\b(?:imagine|pretend|suppose)\s+(?:that\s+)?you\s+are\s+(?:a|an|the)\s+(?:\w+\s+)?(?:grader|examiner|"
        r"evaluator|professor|marker|reviewer|teacher\s+grading)\b",
        r"\b(?:act|behave|respond)\s+as\s+(?:a|an|the)\s+(?:lenient|generous|kind|friendly|relaxed)\s+(?:grader|"
        r"examiner|teacher|evaluator|judge|reviewer|marker)",
        r"\byou\s+are\s+now\s+(?:a|an|the)\s+(?:\w+\s+)?(?:grader|examiner|teacher|evaluator|judge|reviewer)",
        # the same claims in Chinese, Japanese and Korean
        r"参考答案(?:已经?|是)?(?:过时|错误|有误|不正确|不对|已更新)",
        r"专家(?:们)?(?:一致)?(?:认为|确认|同意|认定)(?:这个|该|此)?(?:回答|答案)(?:是)?(?:正确|对)",
        r"(?:参照|模範|正解|基準)(?:回答|解答|答え)?(?:は|が)(?:古い|間違|誤り|時代遅れ|最新ではない)",
        r"専門家(?:たち)?(?:も|は|が)(?:この)?(?:回答|答え)(?:は|が)?(?:正しい|正確)",
        r"참조\s*(?:답변|답안|정답)(?:은|는|이)\s*(?:오래|틀|잘못|구식)",
        r"전문가(?:들)?(?:이|은|는)?\s*(?:이\s*)?(?:답변|답)(?:이|은|는)\s*(?:정확|맞)",
    ],
    "role_play": [
        r"\byou\s+are\s+(?:now\s+)?(?:a\s+|an\s+|the\s+)?(?:grader|evaluator|\w*bot|dan)\b",
        r"\blet'?s\s+play\s+a\s+game\b",
        r"\bstay\s+in\s+character\b",
        r"\bpretend\s+(?:that\s+)?you\s+are\s+(?:a\s+|an\s+|the\s+)?(?:grader|judge|evaluator|\w*bot)\b",
    ],
}

#: the pattern kinds, in the order results list them
PATTERN_KINDS = tuple(_PATTERNS)
COMPILED = {kind: re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
            for kind, patterns in _PATTERNS.items()}

#: talk about the grading of the very text it stands in, which an ordinary answer or passage rarely holds:
#: the text itself (this answer, the question above, the given reference) ...
GRADING_TALK_SELF = re.compile(
    r"\b(?:this|the\s+above|the\s+following|my|the\s+(?:given|provided|original|shown|current|previous|earlier))\s+"
    r"(?:answer|response|reply|submission|item|question|reference|passage|passages|quiz|entry|output|text|context|"
    r"document|key)s?\b|\b(?:question|reference|passage|prompt)\s+(?:shown\s+|given\s+|asked\s+|printed\s+)?above\b",
    re.IGNORECASE)
#: ... and the words of grading (with the text named, one is enough; three make a sentence about grading)
GRADING_TALK_WORDS = re.compile(
    r"\b(?:grader|grading|graded|grade[sd]?|examiner|marker|marking|marks?|rubric|scor(?:e|ed|ing)|evaluat\w+|"
    r"assess\w+|review(?:ed|er|ers)?|answer\s+key|reference\s+answer|verdict|approved|pre-?approved|accept(?:ed)?|"
    r"confirmed|verified|validated|certified|on-?topic|off-?topic|full\s+credit|credit|outdated|superseded|replaced|"
    r"misprint\w*|typo|errat\w+|correct(?:ed|ly)?|incorrect|accurate|relevant|supported|pass(?:es|ed)?)\b",
    re.IGNORECASE)
