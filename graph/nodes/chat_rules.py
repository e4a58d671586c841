"""The rules that settle a turn as chat: small talk, the assistant, writing, translation,
arithmetic, programming and general knowledge."""

from __future__ import annotations

import re

from graph.nodes.rule import compile_rule

_SMALL_TALK_ITEM = (
    r"(?:hi|hello|hey|hiya|yo|howdy|hallo|bonjour|hola|ciao|greetings|"
    r"good (?:morning|afternoon|evening|night|day)|thanks?|thank you|thx|ty|cheers|"
    r"ok(?:ay)?|k|cool|great|nice|awesome|perfect|excellent|wonderful|brilliant|"
    r"got it|understood|i see|makes sense|sounds good|fair enough|never ?mind|"
    r"yes|yeah|yep|no|nope|sure|lol|haha|bye|goodbye|see you|see ya|later|"
    r"good job|well done|you'?re (?:great|welcome|the best)|no problem|np|"
    r"(?:that|this|it) (?:helps|helped)|(?:that|this|it)(?:'s| is| was) "
    r"(?:(?:very|really|so) )?(?:helpful|useful|great|perfect|clear|it)|very helpful)"
    r"(?:[\s,!.]+(?:there|again|so much|a lot|very much|docent|friend|buddy|mate|"
    r"everyone|all|then|for (?:that|this|the help|your help)))*"
)
SMALL_TALK = compile_rule(
    "small talk",
    "chat",
    r"^\W*" + _SMALL_TALK_ITEM + r"(?:[\s,!.]+" + _SMALL_TALK_ITEM + r")*\W*$",
)
"""Greetings, thanks and acknowledgements, one or several: after a search, the real model's "Thanks,
that helps!" was searched as a follow-up and answered "Not found in your documents"."""

_GREETING = (
    r"(?:hi|hello|hey|hiya|yo|howdy|hallo|bonjour|hola|ciao|greetings|"
    r"good (?:morning|afternoon|evening|day)|thanks?|thank you|thx|ty|cheers|"
    r"ok(?:ay)?|cool|great|nice|awesome|perfect|got it|sure|alright|all right)"
)
GREETING_FIRST = re.compile(
    r"^\W*" + _GREETING + r"(?:[\s,]+(?:there|again|so much|a lot|very much|docent|friend|"
    r"buddy|mate|everyone|all|cool|great))*\s*[!,.:;\u2014-]+\s*"
    r"(?:(?:also|now|and|so|then|next|quick question|one more(?: thing| question)?|"
    r"another (?:one|question))\b[\s,:;!.\u2014-]*)*",
    re.IGNORECASE,
)
"""A greeting before the message proper ("Hi! What's 18% of 65?"): the rules judge what follows, so
a greeting never hides a question's kind."""

ABOUT_ME = compile_rule(
    "about the assistant",
    "chat",
    r"^\W*(?:who|what) (?:are|r) (?:you|u)\b|\bwhat(?:'s| is) your name\b|"
    r"\bwhat can you do\b|\bhow are (?:you|u)\b|\bhow'?s it going\b|"
    r"\bare you (?:a |an )?(?:bot|robot|human|ai|real|person)\b|\bwho (?:made|built|created) you\b|"
    r"\bwhat model are you\b|^\W*help\W*$|\bhow do(?:es)? (?:this app|you) work\b",
)

WRITING = compile_rule(
    "writing task",
    "chat",
    r"^\W*(?:(?:please|pls|can you|could you|would you|will you|help me|i need you to|"
    r"i want you to|let'?s)\s+)*(?:write|draft|compose|pen|create|generate|make up|"
    r"come up with|brainstorm|invent|suggest|give me|tell me|rewrite|rephrase|paraphrase|"
    r"reword|word|phrase|proofread|polish|shorten|expand|fix|correct|improve|edit|check)\s+"
    r"(?:me\s+|us\s+)?(?:a|an|some|\d+|ten|five|three|few|the grammar|this|my|another)?\s*"
    r"(?:\w+[\s-]){0,5}?(?:poems?|story|stories|emails?|e-mails?|letters?|haikus?|jokes?|"
    r"songs?|lyrics|limericks?|essays?|tweets?|posts?|slogans?|toasts?|speech|names?|"
    r"ideas?|titles?|captions?|messages?|notes?|invitations?|recipes?|riddles?|puns?|"
    r"taglines?|bio|cover letter|sentences?|paragraph|text|fact|quotes?|headlines?|"
    r"grammar|spelling|code|function|script|program|query|regex|rhymes?|dialogue|"
    r"reminders?|repl(?:y|ies)|responses?|greetings?|wishes|apology)\b|"
    r"\bmake (?:this|that|it|my) (?:\w+ )?(?:sound|more|less|shorter|longer|funnier|"
    r"clearer|friendlier|better)\b|\bsubject line\b|"
    r"\b(?:grammar|spelling|punctuation|grammatically)\b|"
    r"['\"\u2018\u201c]\w+['\"\u2019\u201d] or ['\"\u2018\u201c]\w+['\"\u2019\u201d]",
)

INLINE_WRITING = compile_rule(
    "writing task on given text",
    "chat",
    r"^\W*(?:(?:please|pls|can you|could you|would you|help me)\s+)*(?:rephrase|rewrite|"
    r"reword|proofread|polish|shorten|improve|edit|fix|correct|check|make)\b[^:\n]{0,60}:\s*\S",
)
"""A writing task whose text follows a colon ("Improve this paragraph: we was late…"): the text is
given, not a document to search."""

GENERAL = compile_rule(
    "general knowledge",
    "chat",
    r"\bcapital (?:city )?of\b|\bpopulation of\b|"
    r"\bwho (?:wrote|invented|discovered|painted|composed|directed|sang|won)\b|"
    r"\bwho is the author of\b|\bfun facts?\b|\blike i'?m (?:five|5|a child|a kid)\b|"
    r"\brhymes? with\b|\b(?:synonyms?|antonyms?)\b|"
    r"\b(?:what does|meaning of|define) the word\b|"
    r"\brecommend (?:me )?(?:a|an|some|any|good) (?:\w+ )?(?:books?|novels?|movies?|films?|"
    r"podcasts?|songs?|albums?|shows?|series|games?|restaurants?|recipes?)\b|"
    r"\b(?:tell|give) me (?:a|another) joke\b",
    library_first=True,
)

TRANSLATE = compile_rule(
    "translation",
    "chat",
    r"^\W*(?:(?:please|can you|could you)\s+)?translate\b|\bhow do (?:you|i|we) say\b|"
    r"\bin (?:french|german|spanish|italian|portuguese|dutch|japanese|chinese|korean|"
    r"arabic|russian|hindi|swedish|norwegian|danish|polish|turkish|greek|latin)\s*\??$",
)

ARITHMETIC = compile_rule(
    "arithmetic",
    "chat",
    r"^[\s\d.,()+\-*/x×÷^%=?]*\d\s*[+\-*/x×÷^%]\s*[\d(][\s\d.,()+\-*/x×÷^%=?]*$|"
    r"^\W*(?:what(?:'s| is)|how much is|calculate|compute|solve)\s+[\d(.-][\d\s.,()]*"
    r"(?:[+\-*/x×÷^%]|times|plus|minus|divided|squared|cubed|to the power)|"
    r"\b(?:square root|percent of|\d+\s*% of|times \d|plus \d|minus \d|divided by)\b|"
    r"\b(?:half|a third|a quarter|double|twice|triple) of \$?\d|"
    r"\b(?:average|mean|median|sum|product) of \d|\b\d+(?:\.\d+)? (?:squared|cubed)\b|"
    r"\bis \d+ (?:a )?(?:prime|even|odd|divisible)\b|^\W*round \d|"
    r"\bsplit (?:a |the )?\$?\d[\w\s$]*\bbetween \d|"
    r"\bhow many (?:seconds|minutes|hours|days|weeks|months|years|ounces|pounds|grams|"
    r"kilograms|teaspoons|tablespoons|cups|pints|quarts|gallons|liters|litres|inches|feet|"
    r"yards|miles|meters|metres|centimeters|millimeters)\b(?: are| is)? (?:in|is) "
    r"(?:a|an|one|\d)|"
    r"\bconvert \d|\b\d+(?:\.\d+)? ?(?:km|miles|kg|lbs?|°?[cf]|celsius|fahrenheit|"
    r"inches|cm|feet|meters|usd|eur|dollars|euros) (?:to|in|into) \w+",
)

PROGRAMMING = compile_rule(
    "programming help",
    "chat",
    r"\b(?:in|with|using) (?:python|javascript|typescript|java|rust|go|golang|c\+\+|c#|"
    r"sql|bash|shell|powershell|excel|regex|css|html|react)\b|"
    r"\b(?:python|javascript|sql|bash|regex|excel) (?:function|script|query|formula|code|"
    r"one-liner|snippet)\b",
)
