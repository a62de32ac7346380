#pragma once
// Identical heads ("clones") for the symmetry experiment. A head of layer l owns, in Hugging Face
// GPT-2's layout (gpt.h):
//   h.l.attn.c_attn.weight (C, 3C)  its columns h·hs … (h+1)·hs of each third (q | k | v)
//   h.l.attn.c_attn.bias   (3C)     the same entries
//   h.l.attn.c_proj.weight (C, C)   its rows h·hs … (h+1)·hs (W_O reads the heads side by side)
// Everything else (embeddings, LayerNorms, c_proj.bias, the MLP) is shared by all heads. Swapping
// two heads' parts leaves the function unchanged, so heads that start equal get equal gradients.
#include "gpt.h"

namespace attn::train {

// Copy head 1's (index 0) columns of c_attn (weight and bias) and its rows of c_proj.weight into
// every other head of every layer.
void make_heads_identical(gpt::Gpt& m);

// max |head h − head 1| over every head h > 1, every layer and every entry a head owns: exactly 0
// if and only if all heads are bit-for-bit clones of head 1 (0 for a one-head model).
double max_head_gap(const gpt::Gpt& m);

}  // namespace attn::train
