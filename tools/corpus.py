#!/usr/bin/python3
"""Generates the classroom corpus for ttrace's default model (no downloaded data).

Every document is built from templates and small word lists with one seeded random
generator, so the same seed always gives the same corpus, byte for byte.

English (most of it): weather, days, food, school, family, animals ("The dog bit the
man."), "I love you", questions and answers, short dialogues, and repeat-after-me drills
(random word lists said twice, which only copying can predict). Korean (a smaller part):
the teaching texts' sentences ("철수는 영희에게 책을 주었다. 그는 기뻐했다.", "나는 오늘
밥을 먹었다.") and variations with other names, objects, times and verbs.

Output (default out/corpus/): train.jsonl and heldout.jsonl (one JSON string per line, one
document each) and stats.json. Held-out documents are texts that occur exactly once and
never in the training split.

  /usr/bin/python3 tools/corpus.py [--seed 1234] [--docs 40000] [--out out/corpus]
"""

import argparse
import collections
import hashlib
import json
import os
import random


# ----------------------------------------------------------------------------- helpers

class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, items):
        """items: a list of values, or a list of (value, weight) pairs (weight a number)."""
        if items and isinstance(items[0], tuple) and isinstance(items[0][1], (int, float)):
            vals = [v for v, _ in items]
            ws = [w for _, w in items]
            return self.r.choices(vals, weights=ws, k=1)[0]
        return self.r.choice(items)

    def chance(self, p):
        return self.r.random() < p


def cap(s):
    return s[:1].upper() + s[1:]


def article(noun):
    return ("an " if noun[0] in "aeiou" else "a ") + noun


# ----------------------------------------------------------------------------- word lists

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WEATHER_ADJ = [("nice", 10), ("sunny", 3), ("cold", 3), ("warm", 3), ("hot", 2), ("rainy", 2),
               ("cloudy", 2), ("windy", 2), ("bad", 2), ("good", 2), ("beautiful", 1)]
# What follows "The weather is nice": the demo prompt's continuations, with weights.
NICE_TAIL = [(" today.", 30), (".", 22), (", so we play outside.", 5), (", so we go to the park.", 4),
             (", isn't it?", 3), (", but it is windy.", 2), (" and warm.", 5), (" and sunny.", 5),
             (" and the sky is blue.", 2), (" outside.", 8), (" this morning.", 5), (" in spring.", 3),
             ("!", 4), (" again.", 2)]
OTHER_TAIL = [(" today.", 35), (".", 30), (" outside.", 8), (" this morning.", 6), (", so we stay inside.", 5),
              (" and windy.", 3), (" again.", 3), (" in winter.", 3), ("!", 3)]
GOOD_WEATHER = ("nice", "sunny", "warm", "good", "beautiful")
WEATHER_FOLLOW_GOOD = ["We play outside.", "Let's go to the park.", "The sky is blue.", "The sun is bright.",
                       "We walk to school.", "The children play in the yard.", "The birds are singing."]
WEATHER_FOLLOW_BAD = ["We stay inside.", "Take an umbrella.", "I wear my coat.", "We read books at home."]
TIMES = ["today", "this morning", "this afternoon", "tonight", "now"]

FOODS = ["rice", "bread", "apples", "bananas", "pizza", "soup", "noodles", "eggs", "fish",
         "cake", "cookies", "milk", "water", "juice", "ice cream", "chicken", "kimchi", "salad"]
FRUITS = ["apple", "banana", "orange", "grape", "pear", "strawberry", "peach", "lemon"]
COLORS = ["red", "yellow", "orange", "green", "purple", "blue", "pink", "white", "black", "brown"]
FRUIT_COLOR = {"apple": "red", "banana": "yellow", "orange": "orange", "grape": "purple",
               "pear": "yellow", "strawberry": "red", "peach": "pink", "lemon": "yellow"}
MEALS = ["breakfast", "lunch", "dinner"]

NAMES = ["Tom", "Mina", "Jack", "Sara", "Ben", "Lily", "Sam", "Anna", "Minsu", "Jiho", "Emma", "Leo"]
HE_SHE = {"Tom": "He", "Jack": "He", "Ben": "He", "Sam": "He", "Minsu": "He", "Jiho": "He", "Leo": "He",
          "Mina": "She", "Sara": "She", "Lily": "She", "Anna": "She", "Emma": "She"}
FAMILY = ["mother", "father", "sister", "brother", "grandmother", "grandfather", "aunt", "uncle"]
JOBS = ["teacher", "doctor", "nurse", "cook", "farmer", "driver", "singer", "police officer"]
SUBJECTS = ["math", "English", "music", "art", "science", "history", "Korean"]
SCHOOL_THINGS = ["book", "pencil", "pen", "notebook", "bag", "ruler", "eraser", "desk", "chair"]
PLACES = ["school", "the park", "the library", "the store", "the zoo", "the beach", "home"]

ANIMALS = ["dog", "cat", "bird", "horse", "cow", "fish", "rabbit", "duck", "mouse", "lion", "monkey", "pig"]
ANIMAL_SOUND = {"dog": "barks", "cat": "meows", "bird": "sings", "cow": "moos", "duck": "quacks",
                "lion": "roars", "pig": "oinks", "horse": "neighs", "mouse": "squeaks"}
PEOPLE = ["man", "boy", "girl", "woman", "teacher", "child", "baby", "farmer"]
# "The dog bit the ..." and its objects, with weights.
BIT_OBJ = [("man", 30), ("boy", 8), ("cat", 8), ("girl", 6), ("ball", 5), ("bone", 5), ("mailman", 4),
           ("woman", 3), ("teacher", 2)]
ANIMAL_VERBS = ["chased", "saw", "liked", "followed", "watched", "found", "bit"]

LOVE_OBJ = [("you", 40), ("my mother", 6), ("my father", 5), ("my family", 5), ("my dog", 4), ("my cat", 3),
            ("pizza", 4), ("ice cream", 3), ("music", 3), ("school", 3), ("my teacher", 2), ("apples", 2),
            ("summer", 2), ("books", 2), ("the rain", 1), ("it", 2), ("this song", 1)]


# ----------------------------------------------------------------------------- English sentences

def weather_sentence(g, nice_bias=0.0):
    adj = "nice" if g.chance(nice_bias) else g.pick(WEATHER_ADJ)
    tail = g.pick(NICE_TAIL if adj == "nice" else OTHER_TAIL)
    return "The weather is " + adj + tail


def weather_other(g):
    forms = [
        lambda: "It is " + g.pick(["sunny", "cold", "warm", "hot", "windy", "cloudy"]) + " " + g.pick(TIMES) + ".",
        lambda: "It is raining " + g.pick(["today", "outside", "again", "now"]) + ".",
        lambda: "It is snowing " + g.pick(["today", "outside", "now"]) + ".",
        lambda: "The sky is " + g.pick(["blue", "gray", "dark", "clear"]) + " " + g.pick(["today", "now"]) + ".",
        lambda: "The sun is " + g.pick(["hot", "bright", "warm"]) + ".",
        lambda: "Take an umbrella. It is raining.",
        lambda: "The weather was " + g.pick(["nice", "cold", "bad", "rainy", "warm"]) + " yesterday.",
        lambda: "The weather will be " + g.pick(["nice", "cold", "warm", "sunny", "rainy"]) + " tomorrow.",
        lambda: "In " + g.pick(["winter", "summer", "spring", "fall"]) + ", the weather is "
        + g.pick(["cold", "hot", "warm", "cool", "nice"]) + ".",
    ]
    return g.pick(forms)()


def day_sentence(g):
    i = g.r.randrange(7)
    forms = [
        lambda: "Today is " + DAYS[i] + ".",
        lambda: "Today is " + DAYS[i] + ". Tomorrow is " + DAYS[(i + 1) % 7] + ".",
        lambda: "Yesterday was " + DAYS[(i - 1) % 7] + ". Today is " + DAYS[i] + ".",
        lambda: "On " + DAYS[i] + ", we have " + g.pick(SUBJECTS) + " class.",
        lambda: "We go to school on " + DAYS[g.r.randrange(5)] + ".",
        lambda: "On " + g.pick(["Saturday", "Sunday"]) + ", we do not go to school.",
        lambda: DAYS[i] + " comes after " + DAYS[(i - 1) % 7] + ".",
        lambda: "There are seven days in a week.",
    ]
    return g.pick(forms)()


def food_sentence(g):
    n = g.pick(NAMES)
    f = g.pick(FRUITS)
    forms = [
        lambda: "I eat " + g.pick(FOODS) + " for " + g.pick(MEALS) + ".",
        lambda: "I like " + g.pick(FOODS) + ".",
        lambda: n + " likes " + g.pick(FOODS) + ".",
        lambda: "We had " + g.pick(FOODS) + " for " + g.pick(MEALS) + ".",
        lambda: "The " + f + " is " + FRUIT_COLOR[f] + ".",
        lambda: "I am hungry. I want " + g.pick(FOODS) + ".",
        lambda: "I ate " + g.pick(FOODS) + " today.",
        lambda: "My mother makes " + g.pick(FOODS) + " for " + g.pick(MEALS) + ".",
        lambda: "I drink " + g.pick(["milk", "water", "juice", "tea"]) + " every morning.",
        lambda: "This " + g.pick(["soup", "cake", "pizza", "bread"]) + " is " + g.pick(["good", "hot", "sweet", "delicious"]) + ".",
    ]
    return g.pick(forms)()


def school_sentence(g):
    n = g.pick(NAMES)
    forms = [
        lambda: "I go to school " + g.pick(["every day", "by bus", "on foot", "at eight"]) + ".",
        lambda: "The teacher " + g.pick(["reads a book", "writes on the board", "asks a question",
                                        "helps the students", "opens the door"]) + ".",
        lambda: "The students " + g.pick(["read books", "write in their notebooks", "listen to the teacher",
                                         "play in the yard", "sit at their desks"]) + ".",
        lambda: n + " is in the classroom.",
        lambda: "I have " + article(g.pick(SCHOOL_THINGS)) + " in my bag.",
        lambda: "My favorite subject is " + g.pick(SUBJECTS) + ".",
        lambda: n + " studies " + g.pick(SUBJECTS) + " after school.",
        lambda: "Open your books, please.",
        lambda: "Please sit down.",
        lambda: "The " + g.pick(SCHOOL_THINGS) + " is on the desk.",
        lambda: "We learn " + g.pick(SUBJECTS) + " at school.",
    ]
    return g.pick(forms)()


def family_sentence(g):
    m = g.pick(FAMILY)
    forms = [
        lambda: "My " + m + " is " + article(g.pick(JOBS)) + ".",
        lambda: "I love my " + m + ".",
        lambda: "My " + m + " has " + article(g.pick(ANIMALS)) + ".",
        lambda: "I live with my " + g.pick(["mother", "father", "family", "grandmother"]) + ".",
        lambda: "There are " + g.pick(["three", "four", "five"]) + " people in my family.",
        lambda: "My " + m + " is " + g.pick(["kind", "tall", "funny", "busy", "happy"]) + ".",
        lambda: "This is my " + m + ".",
    ]
    return g.pick(forms)()


def animal_sentence(g, bite_bias=0.0):
    a = g.pick(ANIMALS)
    b = g.pick(ANIMALS + PEOPLE)
    if g.chance(bite_bias):
        return "The dog bit the " + g.pick(BIT_OBJ) + "."
    forms = [
        (lambda: "The dog bit the " + g.pick(BIT_OBJ) + ".", 6),
        (lambda: "The man bit the dog.", 1),
        (lambda: "The " + g.pick(["cat", "dog", "boy", "bird"]) + " bit the " + g.pick(["man", "ball", "apple", "dog"]) + ".", 1),
        (lambda: "The " + a + " " + g.pick(ANIMAL_VERBS) + " the " + (b if b != a else "man") + ".", 4),
        (lambda: "The cat sat on the " + g.pick(["mat", "chair", "bed", "table", "roof"]) + ".", 3),
        (lambda: "The " + a + " is " + g.pick(["big", "small", "fast", "slow", "cute", "hungry", "happy"]) + ".", 2),
        (lambda: ("The " + a + " " + ANIMAL_SOUND[a] + ".") if a in ANIMAL_SOUND else "The " + a + " is sleeping.", 2),
        (lambda: "I have " + article(a) + ".", 2),
        (lambda: "The " + a + " runs in the " + g.pick(["park", "yard", "field"]) + ".", 1),
    ]
    return g.pick(forms)()


def love_sentence(g, love_bias=0.0):
    if g.chance(love_bias):
        return "I love " + g.pick(LOVE_OBJ) + "."
    forms = [
        (lambda: "I love " + g.pick(LOVE_OBJ) + ".", 8),
        (lambda: "I love you, " + g.pick(["Mom", "Dad", "too", "so much"]) + ".", 2),
        (lambda: "You love me.", 1),
        (lambda: "We love our " + g.pick(["teacher", "school", "family", "dog"]) + ".", 2),
        (lambda: g.pick(NAMES) + " loves " + g.pick(FOODS + ["music", "books", "games"]) + ".", 2),
        (lambda: "I like you.", 1),
        (lambda: "I love you, and you love me.", 1),
    ]
    return g.pick(forms)()


def qa(g):
    n = g.pick(NAMES)
    f = g.pick(FRUITS)
    i = g.r.randrange(7)
    pairs = [
        lambda: ("How is the weather today?", weather_sentence(g, nice_bias=0.5)),
        lambda: ("What is the weather like?", weather_sentence(g, nice_bias=0.4)),
        lambda: ("What day is it today?", "It is " + DAYS[i] + "."),
        lambda: ("What is your name?", "My name is " + n + "."),
        lambda: ("How are you?", g.pick(["I am fine, thank you.", "I am good.", "I am happy today.", "I am tired."])),
        lambda: ("What color is the " + f + "?", "It is " + FRUIT_COLOR[f] + "."),
        lambda: ("Do you like " + g.pick(FOODS) + "?", g.pick(["Yes, I do.", "No, I do not.", "Yes, I love it."])),
        lambda: ("What did the dog do?", "The dog bit the " + g.pick(BIT_OBJ) + "."),
        lambda: ("Who do you love?", "I love " + g.pick(LOVE_OBJ) + "."),
        lambda: ("Where are you going?", "I am going to " + g.pick(PLACES) + "."),
        lambda: ("What do you eat for " + g.pick(MEALS) + "?", "I eat " + g.pick(FOODS) + "."),
        lambda: ("How old are you?", "I am " + g.pick(["seven", "eight", "nine", "ten", "eleven", "twelve"]) + " years old."),
        lambda: ("What is your favorite subject?", "My favorite subject is " + g.pick(SUBJECTS) + "."),
    ]
    return g.pick(pairs)()


def dialogue(g):
    """A short dialogue with speaker labels, one turn a line."""
    a, b = g.pick([("A", "B"), ("Teacher", "Student"), ("Mom", "Tom"), ("Mina", "Jack")])
    turns = []
    for _ in range(g.r.randint(1, 2)):
        q, ans = qa(g)
        turns.append(a + ": " + q)
        turns.append(b + ": " + ans)
    if g.chance(0.3):
        turns.append(a + ": " + g.pick(["Good!", "Thank you.", "Me too.", "That is nice.", "Great!"]))
    return "\n".join(turns)


def q_and_a(g):
    q, ans = qa(g)
    if g.chance(0.5):
        return "Q: " + q + "\nA: " + ans
    return q + " " + ans


TOPICS = [
    ("weather", 20), ("weather_other", 5), ("days", 7), ("food", 9), ("school", 9), ("family", 7),
    ("animals", 11), ("love", 9), ("qa", 8), ("dialogue", 6), ("drill", 16),
]


def english_sentence(g, topic):
    if topic == "weather":
        return weather_sentence(g, nice_bias=0.3)
    if topic == "weather_other":
        return weather_other(g)
    if topic == "days":
        return day_sentence(g)
    if topic == "food":
        return food_sentence(g)
    if topic == "school":
        return school_sentence(g)
    if topic == "family":
        return family_sentence(g)
    if topic == "animals":
        return animal_sentence(g)
    if topic == "love":
        return love_sentence(g)
    if topic == "qa":
        return q_and_a(g)
    if topic == "drill":
        return drill(g)
    return dialogue(g)


DRILL_WORDS = sorted(set(
    DAYS + FRUITS + COLORS + ANIMALS + PEOPLE + SCHOOL_THINGS + FAMILY
    + [f for f in FOODS if " " not in f] + ["rain", "snow", "sun", "wind", "cloud", "tree", "house", "car",
                                          "bus", "door", "ball", "game", "song", "star", "moon", "hat"]))


def drill(g):
    """Repeat-after-me drills: a random list of words (or a sentence), then the same again.

    The second half can only be predicted by looking back at the first, which is what
    teaches the model to copy (previous-token and induction heads)."""
    n = g.r.randint(3, 6)
    words = [g.pick(DRILL_WORDS) for _ in range(n)]
    kind = g.pick([("words", 5), ("commas", 2), ("sentence", 3)])
    if kind == "words":
        lst = " ".join(words)
        return g.pick([
            lambda: "Say the words: " + lst + ". Say them again: " + lst + ".",
            lambda: "Teacher: Repeat after me. " + cap(lst) + ".\nStudents: " + cap(lst) + ".",
            lambda: "Listen: " + lst + ". Now you: " + lst + ".",
        ])()
    if kind == "commas":
        lst = ", ".join(words)
        return "Read the list: " + lst + ". Read it again: " + lst + "."
    sent = english_sentence(g, g.pick(TOPICS[:8]))
    return "Teacher: Repeat after me. " + sent + "\nStudents: " + sent


def english_doc(g):
    """One to three sentences; the first sets the topic (and starts at position 0)."""
    topic = g.pick(TOPICS)
    first = english_sentence(g, topic)
    if topic in ("qa", "dialogue", "drill"):
        return first, topic
    parts = [first]
    for _ in range(g.pick([(0, 5), (1, 4), (2, 2)])):
        # Follow-ups stay on topic half of the time; after the weather, say what we do.
        if topic == "weather" and g.chance(0.5):
            good = any(" is " + a in first for a in GOOD_WEATHER)
            parts.append(g.pick(WEATHER_FOLLOW_GOOD if good else WEATHER_FOLLOW_BAD))
            continue
        t = topic if g.chance(0.5) else g.pick(TOPICS[:8])
        parts.append(english_sentence(g, t))
    return " ".join(parts), topic


# ----------------------------------------------------------------------------- Korean sentences

def has_batchim(word):
    """True when the last Hangul syllable ends in a consonant (받침)."""
    c = ord(word[-1])
    return 0xAC00 <= c <= 0xD7A3 and (c - 0xAC00) % 28 != 0


def topic_p(w):   # 은/는
    return w + ("은" if has_batchim(w) else "는")


def subj_p(w):    # 이/가
    return w + ("이" if has_batchim(w) else "가")


def obj_p(w):     # 을/를
    return w + ("을" if has_batchim(w) else "를")


KO_PEOPLE = [("철수", "그는"), ("영희", "그녀는"), ("민수", "그는"), ("지영", "그녀는"), ("수진", "그녀는"), ("준호", "그는")]
KO_GIFTS = [("책", 12), ("사과", 4), ("꽃", 3), ("편지", 3), ("연필", 3), ("선물", 3), ("공", 2), ("우산", 1)]
KO_GIVE = [("주었다", 10), ("빌려주었다", 2), ("보냈다", 2), ("보여주었다", 1)]
KO_FEEL = [("기뻐했다", 10), ("웃었다", 3), ("고마워했다", 3), ("놀랐다", 2), ("행복했다", 2)]
KO_SUBJ = [("나는", 10), ("철수는", 3), ("영희는", 3), ("우리는", 2), ("동생은", 1), ("친구는", 1)]
KO_TIME = [("오늘", 10), ("어제", 4), ("아침에", 3), ("점심에", 3), ("저녁에", 3), ("학교에서", 2), ("집에서", 2)]
KO_EAT = [("밥을 먹었다", 14), ("사과를 먹었다", 5), ("빵을 먹었다", 3), ("김치를 먹었다", 2), ("국수를 먹었다", 1),
          ("물을 마셨다", 3), ("우유를 마셨다", 2), ("주스를 마셨다", 1), ("학교에 갔다", 3), ("책을 읽었다", 3),
          ("친구를 만났다", 2), ("숙제를 했다", 2)]
KO_WEATHER = ["오늘은 날씨가 좋다.", "오늘은 날씨가 맑다.", "오늘은 비가 온다.", "오늘은 날씨가 춥다.",
              "날씨가 좋아서 우리는 밖에서 놀았다.", "어제는 눈이 왔다."]
KO_LOVE = ["나는 너를 사랑한다.", "나는 엄마를 사랑한다.", "나는 우리 가족을 사랑한다."]
KO_ANIMAL = ["개가 사람을 물었다.", "고양이가 의자 위에 앉았다.", "강아지가 공을 쫓았다.", "새가 노래한다."]


def korean_sentence(g):
    kind = g.pick([("give", 10), ("eat", 10), ("weather", 2), ("love", 1), ("animal", 1)])
    if kind == "give":
        if g.chance(0.25):
            return "철수는 영희에게 책을 주었다. 그는 기뻐했다."   # the teaching text's own sentences
        (a, pron), (b, _) = g.r.sample(KO_PEOPLE, 2)
        if g.chance(0.4):
            a, pron, b = "철수", "그는", "영희"   # the teaching text's own sentence, often
        s = topic_p(a) + " " + b + "에게 " + obj_p(g.pick(KO_GIFTS)) + " " + g.pick(KO_GIVE) + "."
        if g.chance(0.8):
            s += " " + pron + " " + g.pick(KO_FEEL) + "."
        if g.chance(0.2):
            s += " " + subj_p(b) + " " + g.pick(["웃었다", "고마워했다", "기뻐했다"]) + "."
        return s
    if kind == "eat":
        if g.chance(0.3):
            return "나는 오늘 밥을 먹었다."   # the teaching text's own sentence, often
        s = g.pick(KO_SUBJ) + " " + g.pick(KO_TIME) + " " + g.pick(KO_EAT) + "."
        if g.chance(0.2):
            s += " " + g.pick(["맛있었다.", "배가 불렀다.", "기분이 좋았다.", "재미있었다."])
        return s
    if kind == "weather":
        return g.pick(KO_WEATHER)
    if kind == "love":
        return g.pick(KO_LOVE)
    return g.pick(KO_ANIMAL)


def korean_doc(g):
    parts = [korean_sentence(g)]
    if g.chance(0.3):
        parts.append(korean_sentence(g))
    return " ".join(parts), "korean"


# ----------------------------------------------------------------------------- corpus

def generate(seed, n_docs, korean_share=0.15):
    g = Gen(seed)
    docs = []
    for _ in range(n_docs):
        docs.append(korean_doc(g) if g.chance(korean_share) else english_doc(g))
    return docs


def split(docs, heldout_share, seed):
    """Held-out: texts that occur once, chosen by a seeded hash of the text. Never in train."""
    counts = collections.Counter(t for t, _ in docs)
    train, held = [], []
    for text, topic in docs:
        h = int(hashlib.sha256((str(seed) + "|" + text).encode("utf-8")).hexdigest()[:8], 16) / 2 ** 32
        if counts[text] == 1 and h < heldout_share / 0.6:   # about 60% of texts are unique
            held.append((text, topic))
        else:
            train.append((text, topic))
    return train, held


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--docs", type=int, default=40000)
    ap.add_argument("--heldout", type=float, default=0.05)
    ap.add_argument("--out", default="out/corpus")
    ap.add_argument("--show", type=int, default=0, help="print this many sample documents")
    args = ap.parse_args()

    docs = generate(args.seed, args.docs)
    train, held = split(docs, args.heldout, args.seed)
    os.makedirs(args.out, exist_ok=True)
    for name, part in (("train", train), ("heldout", held)):
        with open(os.path.join(args.out, name + ".jsonl"), "w", encoding="utf-8") as f:
            for text, _ in part:
                f.write(json.dumps(text, ensure_ascii=False) + "\n")
    topics = collections.Counter(t for _, t in docs)
    stats = {
        "seed": args.seed,
        "documents": len(docs),
        "unique_documents": len(set(t for t, _ in docs)),
        "train_documents": len(train),
        "heldout_documents": len(held),
        "characters": sum(len(t) for t, _ in docs),
        "topics": dict(sorted(topics.items())),
        "starts_with_the_weather_is_nice": sum(t.startswith("The weather is nice") for t, _ in docs),
        "contains_the_weather_is_nice": sum(t.count("The weather is nice") for t, _ in docs),
        "contains_i_love": sum(t.count("I love") for t, _ in docs),
        "contains_the_dog_bit_the": sum(t.count("The dog bit the") for t, _ in docs),
        "contains_cheolsu_gave_younghee_book": sum(t.count("철수는 영희에게 책을 주었다") for t, _ in docs),
        "contains_i_ate_rice_today": sum(t.count("나는 오늘 밥을 먹었다") for t, _ in docs),
    }
    with open(os.path.join(args.out, "stats.json"), "w", encoding="utf-8") as f:
        json.dump(stats, f, ensure_ascii=False, indent=1)
    print(json.dumps(stats, ensure_ascii=False, indent=1))
    for text, _ in docs[:args.show]:
        print("---\n" + text)


if __name__ == "__main__":
    main()
