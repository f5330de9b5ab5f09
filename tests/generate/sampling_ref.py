#!/usr/bin/python3
"""An independent implementation of ttrace's generator and sampling rule (docs/generation.md),
written from that description in plain Python integers and floats (IEEE double).

    from sampling_ref import Rng, sample
"""
import math

MASK = (1 << 64) - 1


def splitmix64(state):
    """-> (new state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


class Rng:
    """xoshiro256** with its four words from splitmix64(seed)."""

    def __init__(self, seed):
        self.s = []
        state = seed & MASK
        for _ in range(4):
            state, out = splitmix64(state)
            self.s.append(out)

    def next(self):
        s = self.s
        result = (rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def double(self):
        return (self.next() >> 11) * 2.0**-53


def sample(logits, temperature, top_k, top_p, rng):
    """logits: a sequence of float32 values (as Python floats). -> (id, p_model, n_kept)."""
    V = len(logits)
    lg = [float(x) for x in logits]
    m1 = max(lg)
    z1 = sum(math.exp(x - m1) for x in lg)

    def p_model(i):
        return math.exp(lg[i] - m1) / z1

    if temperature == 0:
        best = max(range(V), key=lambda i: (lg[i], -i))
        return best, p_model(best), 1
    z = [x / temperature for x in lg]
    m = max(z)
    w = [math.exp(x - m) for x in z]
    total = 0.0
    for x in w:  # in id order
        total += x
    p = [x / total for x in w]
    order = sorted(range(V), key=lambda i: (-lg[i], i))
    n = top_k if 0 < top_k < V else V
    if top_p < 1:
        mass = 0.0
        for j in range(n):
            mass += p[order[j]]
        run = 0.0
        for j in range(n):
            run += p[order[j]]
            if run >= top_p * mass:
                n = j + 1
                break
    mass = 0.0
    for j in range(n):
        mass += p[order[j]]
    target = rng.double() * mass
    pick = order[n - 1]
    run = 0.0
    for j in range(n):
        run += p[order[j]]
        if run > target:
            pick = order[j]
            break
    return pick, p_model(pick), n
