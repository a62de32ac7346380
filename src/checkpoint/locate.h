#pragma once
// --weights PATH: a folder holding config.json and model.safetensors (or a sharded
// model.safetensors.index.json), or a model id ("gpt2", "openai-community/gpt2") looked up in the
// local Hugging Face cache. attnlab never downloads anything: a model that is not there is one
// UsageError saying where it looked and how to download it with the Hugging Face CLI.
//
// The cache, as huggingface_hub lays it out:
//   $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub
//   └── models--ORG--NAME/refs/main (a revision hash)  snapshots/REV/{config.json, model.safetensors, …}
#include <optional>
#include <string>
#include <vector>

namespace attn {

// Models attnlab ships (data/trained/NAME: text-en, text-zh, induction, repeat-half) are names too:
// compiled into the binary, written once to a folder of attnlab's own cache the first time one is
// asked for ($XDG_CACHE_HOME/attnlab or ~/.cache/attnlab, else a private folder under $TMPDIR for
// this run), so every checkpoint command reads them as it reads any folder. A folder of that name
// in the current directory wins.
std::vector<std::string> builtin_model_names();
// The sentence a shipped model runs on when --weights NAME comes without --text or --token-ids
// (data/trained/samples.json: the README's examples), if NAME is a shipped model that has one.
std::optional<std::string> builtin_sample_text(const std::string& name);
// The name a learner gave for a built-in model's folder ("text-en"), or the folder itself: what
// lessons and reports print, the same on every machine.
std::string weights_label(const std::string& folder);

// The cache folder huggingface_hub would use, from the environment.
std::string hf_hub_cache();
// The folder --weights names: PATH itself if it is a folder, else the model's snapshot in the
// cache (refs/main's revision, else the newest snapshot holding a config.json). Errors name --weights.
std::string resolve_weights(const std::string& spec);

}  // namespace attn
