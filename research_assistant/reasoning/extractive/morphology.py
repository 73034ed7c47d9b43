"""English word forms for the question parser: a small verb lexicon, inflection and grammatical number.

Classical and approximate: a list of common base-form verbs (those that are mostly verbs, and those
that are as often nouns), irregular past forms, and suffix rules for the rest. Used to find the main
verb of a question and to rephrase its clause ('did the network open' -> 'the network opened').
"""

from __future__ import annotations

import re


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


VERBS: frozenset[str] = _set(
    """accept accomplish achieve acquire adapt add address adjust admit adopt affect agree aim allocate allow
    alter analyse analyze announce answer appear apply appoint approve argue arise arrange arrive ask assemble
    assess assign assist assume attach attempt attend attract avoid become begin behave believe belong borrow
    break breathe bring build burn buy calculate carry cause change choose claim clean collapse collect combine
    come commit communicate compare compete compile complete comply compose compress compute conclude conduct
    confirm connect consider consist construct consume contain continue contribute control convert convince
    cooperate coordinate cope correct count create crash cross cut deal decide declare decline decrease deduct
    defeat defend define delay delete deliver demonstrate deny depend deploy derive describe destroy detect
    determine develop die differ disappear discover discuss dissolve distinguish distribute divide do download
    draw drink drive earn eat eliminate emerge emit employ enable encode encourage end enforce engage enhance
    enlarge ensure enter escape establish estimate evaluate evaporate evolve examine exceed exchange execute
    exist expand expect experience explain explode explore expose express extend extract fail fall feed feel
    fight fill find finish fit flow fly follow forbid force forget forgive form found freeze function gain
    gather generate get give go govern grant grow handle happen hate have hear heat help hide hit hold hurt
    identify ignore imagine implement imply import impose improve include incorporate increase indicate
    influence inform inherit inhibit initialize insert install integrate intend interact interfere interpret
    introduce invade invent invest investigate invoke involve isolate join keep kill know last launch lead
    learn leave lend let lie limit link listen live load locate lose lower maintain make manage mark marry
    matter measure meet melt merge migrate minimize miss mix modify monitor move multiply need negotiate notice
    obey observe obtain occupy occur offer open operate optimize order organize originate overcome overtake owe
    own parse participate pass pay perceive perform permit persist persuade pick place plan play predict
    prefer prepare preserve prevent print process produce prohibit promote propose protect prove provide
    publish pull purchase pursue push put qualify raise reach react read realize reason rebuild recall receive
    recognize recommend reconcile record recover recycle reduce refer reflect reform refuse regain regulate
    reject relate release rely remain remember remove render rent repair repeat replace reply report represent
    reproduce request require rescue research resemble reserve reset resist resolve respond restore restrict
    result resume retain retire retrieve return reuse reveal review reward rise rotate rule run sail save say
    scale schedule search secure see seek select sell send separate serve set settle shape share shift shoot
    show shrink shut sign simplify sing sink sit sleep slow smell solve sort speak specify spend split spread
    stabilize stand start starve state stay steal stimulate stop store strengthen strike struggle study submit
    succeed suffer suggest supply support suppress surround survive suspend sustain swim switch take talk
    target teach tell tend terminate test think threaten throw tolerate track trade train transfer transform
    translate transmit transport travel treat trigger try turn undergo understand unite update upgrade use
    validate vary verify violate visit vote wait wake walk want warn wash watch weaken wear weigh win wish
    withdraw work worry write yield spawn reclaim deallocate close seem look sound export erupt hatch rebase
    abandon absorb accelerate accompany accumulate accuse acknowledge activate advise afford amend amplify anticipate
    appreciate assert authenticate authorize automate await beg bend bind blame bless boil boost bother breed brew
    browse bury calibrate cancel capitalize celebrate certify characterize chase cheat circulate cite clarify
    classify climb cling clone coexist collaborate colonize commute compensate complain complicate comprise condemn
    condense configure confuse conquer conserve constrain consult contaminate contend convey cook correlate
    correspond corrupt crawl crush cultivate customize debug deceive decode decompose decorate decrypt dedicate
    deepen defer deflate degrade delegate demolish depart depreciate descend deserve despise deteriorate devote
    diagnose dictate digest dilute diminish dine dip direct disable disagree discard disclose discourage disguise
    dismiss dispatch displace dispose disrupt distort disturb dive diversify dominate donate drown dwell educate
    elect elevate embed embrace emphasize encrypt endanger endorse endure enjoy enrich enroll entertain equip erase
    erode escalate evacuate evade exaggerate excel excite exclude exhaust expire exploit extinguish facilitate fade
    fetch flee flip float foster frighten fulfil fulfill gamble grab graduate greet heal hesitate hire hurry ignite
    illustrate immigrate impair impress imprison incentivize incur induce infect infer inflate inhabit initiate
    inject injure innovate inquire inspect inspire instruct insulate insure intensify intercept interrupt intervene
    invite irritate justify kneel lean leap liquidate magnify manipulate manufacture maximize mediate memorize
    mislead mitigate mobilize moderate modernize motivate mount navigate neglect nominate normalize nourish nurture
    oblige obscure offend omit oppose oscillate outlast outperform outweigh overlook oversee overwrite plead please
    pollute possess postpone pour pray precede preach predate prescribe presume pretend prevail prioritize
    privatize proceed proclaim prolong prompt pronounce propagate prosecute prosper provoke punish purify quantify
    ratify reassure recede reconstruct recruit redeem redirect redistribute refine refresh rehearse reinforce
    reinstate reiterate rejoice relax relieve relocate remind rename renew renounce reorganize repay repeal
    replicate repel resign resize restart restructure retaliate revise revive revoke revolve rewrite rid ripen
    rinse roam rot rub ruin satisfy scare scatter scrape seize serialize sew shorten shrug sift simulate soften
    solicit soothe sow specialize speculate steer strive stumble subsidize subtract suck sue summarize supervise
    surpass swallow symbolize sympathize tempt throw tighten tilt transcribe tremble undermine underline undertake
    unfold unify uninstall unlock unpack uphold upload urge utilize vanish weave weep widen worsen"""
)
"""Common base-form verbs (a closed list; suffixes like -ize, -ify and -ate add more)."""

NOUN_LIKE_VERBS: frozenset[str] = _set(
    """access act answer attack benefit block book bond border break call cause change charge check claim
    class collapse control cost count cover crash cut cycle date deal decline decrease design display drive
    drop effect end exchange experience face fall file fire fish focus form function fund heat help hit host
    impact import increase influence input interest issue last lead light limit line link list load lock loop
    mark market matter measure model name need object order output package pass pay place plan play point
    post power press price process program queue rain rate reason record reference release report request
    research reserve rest result return review rise rule run sail scale schedule score search share shift
    sign sort stack start state step store structure study supply support switch target test thread time
    trade track train transfer transport trust turn type update use value view vote walk watch water wave
    work yield spawn pump bloom orbit boom leak hash fork wind bear lie ring sink fly cast bet bid
    age balance ban bargain base battle benefit block cache catch challenge charge check comment commit concern
    contract contrast copy cost cover crack credit cure damage dance debate decay deposit desire doubt double drain
    dream dress drift dump encounter escape exercise exhibit feature filter finance fix flood fold forecast frame
    fund guarantee guard guess guide halt harm harvest host hunt index issue jump kick knock label lack land laugh
    lease lift like lock log map march master mention merge mine murder pack paint panic pardon park patch pause
    pile plant pledge plunge point polish pose position post practice practise praise present price print probe
    profile profit program progress project promise protest pull push query question quote race rain rank rate
    reign reply risk roll round rush sacrifice sample scan score screen seal sense sequence shelter ship shout sigh
    signal slice slide slip smash smoke snap soak sort spark spell spill spin sponsor sprint squeeze stack stain
    stamp stare stem stir stitch stream stretch strip subscribe substitute supplement surge surrender survey
    suspect swap sway sweep swell swing tackle tag tap taste tax tear tip toss total touch tour tow trace
    transition trap trim trouble tune twist type undo veto view volunteer wander warm waste welcome whisper wipe
    wonder wrap wreck yell zoom"""
)
"""Base-form verbs that are as often nouns ('the printing press', 'interest rates'): weaker evidence of a verb."""


def _forms(text: str) -> dict[str, tuple[str, str]]:
    table: dict[str, tuple[str, str]] = {}
    for entry in text.split():
        base, past_form, participle = entry.split(":")
        table[base] = (past_form, participle)
    return table


_IRREGULAR = _forms(
    """arise:arose:arisen be:was:been bear:bore:borne beat:beat:beaten become:became:become begin:began:begun
    bend:bent:bent bind:bound:bound bite:bit:bitten bleed:bled:bled blow:blew:blown break:broke:broken
    breed:bred:bred bring:brought:brought broadcast:broadcast:broadcast build:built:built burst:burst:burst
    buy:bought:bought cast:cast:cast catch:caught:caught choose:chose:chosen cling:clung:clung come:came:come
    cost:cost:cost creep:crept:crept cut:cut:cut deal:dealt:dealt dig:dug:dug do:did:done draw:drew:drawn
    drink:drank:drunk drive:drove:driven eat:ate:eaten fall:fell:fallen feed:fed:fed feel:felt:felt
    fight:fought:fought find:found:found flee:fled:fled fly:flew:flown forbid:forbade:forbidden
    forecast:forecast:forecast forget:forgot:forgotten forgive:forgave:forgiven freeze:froze:frozen get:got:gotten
    give:gave:given go:went:gone grind:ground:ground grow:grew:grown hang:hung:hung have:had:had hear:heard:heard
    hide:hid:hidden hit:hit:hit hold:held:held hurt:hurt:hurt keep:kept:kept know:knew:known lay:laid:laid
    lead:led:led leave:left:left lend:lent:lent let:let:let lie:lay:lain light:lit:lit lose:lost:lost make:made:made
    mean:meant:meant meet:met:met overcome:overcame:overcome overtake:overtook:overtaken pay:paid:paid put:put:put
    quit:quit:quit read:read:read rebuild:rebuilt:rebuilt reset:reset:reset ride:rode:ridden ring:rang:rung
    rise:rose:risen run:ran:run say:said:said see:saw:seen seek:sought:sought sell:sold:sold send:sent:sent
    set:set:set shake:shook:shaken shine:shone:shone shoot:shot:shot show:showed:shown shrink:shrank:shrunk
    shut:shut:shut sing:sang:sung sink:sank:sunk sit:sat:sat sleep:slept:slept slide:slid:slid speak:spoke:spoken
    spend:spent:spent spin:spun:spun split:split:split spread:spread:spread stand:stood:stood steal:stole:stolen
    stick:stuck:stuck strike:struck:struck swear:swore:sworn sweep:swept:swept swim:swam:swum swing:swung:swung
    take:took:taken teach:taught:taught tear:tore:torn tell:told:told think:thought:thought throw:threw:thrown
    undergo:underwent:undergone understand:understood:understood undertake:undertook:undertaken upset:upset:upset
    wake:woke:woken wear:wore:worn win:won:won wind:wound:wound withdraw:withdrew:withdrawn write:wrote:written"""
)
"""Irregular verbs: base -> (past, past participle)."""
_FROM_IRREGULAR = {form: base for base, forms in _IRREGULAR.items() for form in forms if form != base}
_STRESSED_LAST = _set(
    "begin forget upset admit commit compel control occur omit permit prefer refer regret submit transfer equip rebel"
)
_NOT_PARTICIPLES = _set(
    "need needed speed seed breed feed bleed proceed succeed exceed indeed hundred kindred sacred naked wicked "
    "rugged ragged bed red shed wed"
)
_SINGULAR_S = _set(
    "news means series species physics economics mathematics statistics politics ethics genetics linguistics "
    "electronics mechanics dynamics logistics analysis basis crisis thesis diagnosis hypothesis synthesis "
    "emphasis status census bus gas lens bias chaos process access success class glass mass loss business "
    "address progress stress virus campus bonus corpus focus consensus apparatus atlas canvas alias"
)
_IRREGULAR_PLURALS = _set("people children men women mice feet teeth geese criteria phenomena bacteria data media")
_VERB_SUFFIX = re.compile(r"[a-z]{3,}(?:ize|ise|ify|ate)$")
_VOWEL_GROUP = re.compile(r"[aeiou]+")
_CVC = re.compile(r"(?:^|[^aeiou])[aeiou][^aeiouwxy]$")


def is_base_verb(word: str) -> bool:
    """Whether a lower-case word can be a base-form verb: listed, or with a verb suffix ('optimize')."""
    return word in VERBS or word in NOUN_LIKE_VERBS or word in _IRREGULAR or bool(_VERB_SUFFIX.fullmatch(word))


def is_clear_verb(word: str) -> bool:
    """A base-form verb that is rarely a noun: 'manage', 'reclaim', 'evaporate' (not 'press', 'work')."""
    return is_base_verb(word) and word not in NOUN_LIKE_VERBS


def _doubles(base: str) -> bool:
    """Whether the final consonant doubles before -ed/-ing: 'stop' -> 'stopped', but 'open' -> 'opened'."""
    if base in _STRESSED_LAST:
        return True
    return len(_VOWEL_GROUP.findall(base)) == 1 and bool(_CVC.search(base))


def third_person(base: str) -> str:
    """'manage' -> 'manages', 'carry' -> 'carries', 'do' -> 'does', 'have' -> 'has'."""
    if base == "have":
        return "has"
    if base == "be":
        return "is"
    if re.search(r"(?:s|sh|ch|x|z|o)$", base):
        return base + "es"
    if re.search(r"[^aeiou]y$", base):
        return base[:-1] + "ies"
    return base + "s"


def past(base: str) -> str:
    """'open' -> 'opened', 'fall' -> 'fell', 'carry' -> 'carried', 'stop' -> 'stopped'."""
    if base in _IRREGULAR:
        return _IRREGULAR[base][0]
    if base.endswith("e"):
        return base + "d"
    if re.search(r"[^aeiou]y$", base):
        return base[:-1] + "ied"
    if _doubles(base):
        return base + base[-1] + "ed"
    return base + "ed"


def gerund(base: str) -> str:
    """'manage' -> 'managing', 'run' -> 'running', 'die' -> 'dying', 'see' -> 'seeing', 'be' -> 'being'."""
    if base == "be":
        return "being"
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")) and len(base) > 2:
        return base[:-1] + "ing"
    if _doubles(base):
        return base + base[-1] + "ing"
    return base + "ing"


def base_of(word: str) -> str | None:
    """The base form of a finite verb ('invented', 'causes', 'fell', 'use'), if it is one."""
    if word in _FROM_IRREGULAR:
        return _FROM_IRREGULAR[word]
    candidates = [word]
    if word.endswith("ies"):
        candidates.append(word[:-3] + "y")
    if word.endswith("es"):
        candidates.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        candidates.append(word[:-1])
    if word.endswith("ied"):
        candidates.append(word[:-3] + "y")
    if word.endswith("ed"):
        candidates.extend([word[:-1], word[:-2], word[:-3]])
    return next((c for c in candidates if c and is_base_verb(c)), None)


def is_participle(word: str) -> bool:
    """A past participle: irregular ('built', 'born') or a regular -ed form ('founded', 'polarized')."""
    if word == "born" or word in _FROM_IRREGULAR:
        return word not in ("was", "did", "had")
    return len(word) >= 4 and word.endswith("ed") and word not in _NOT_PARTICIPLES


def is_plural_noun(word: str) -> bool:
    """Whether a noun reads as plural: 'cycles', 'APIs', 'people'; not 'physics', 'Windows', 'analysis'."""
    low = word.lower()
    if low in _IRREGULAR_PLURALS:
        return True
    if re.fullmatch(r"[A-Z0-9]{2,}s", word):
        return True  # 'APIs', 'GPUs'
    if word[:1].isupper():
        return False  # a name such as 'Windows' or 'Athens'
    if low in _SINGULAR_S or re.search(r"(?:ss|us|is|ics|ness|ous)$", low):
        return False
    return len(low) > 2 and low.endswith("s")
