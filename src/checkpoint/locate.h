#pragma once
// --weights PATH: a folder holding config.json and model.safetensors (or a sharded
// model.safetensors.index.json), or a model id ("gpt2", "openai-community/gpt2") looked up in the
// local Hugging Face cache. attnlab never downloads anything: a model that is not there is one
// UsageError saying where it looked and how to download it with the Hugging Face CLI.
//
// The cache, as huggingface_hub lays it out:
//   $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub
//   └── models--ORG--NAME/refs/main (a revision hash)  snapshots/REV/{config.json, model.safetensors, …}
#include <string>
#include <vector>

namespace attn {

// The cache folder huggingface_hub would use, from the environment.
std::string hf_hub_cache();
// The folder --weights names: PATH itself if it is a folder, else the model's snapshot in the
// cache (refs/main's revision, else the newest snapshot holding a config.json). Errors name --weights.
std::string resolve_weights(const std::string& spec);

}  // namespace attn
