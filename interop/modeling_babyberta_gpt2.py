"""transformers classes for a babyberta.cpp causal LM (kind gpt2) whose attention function is not
softmax (`babyberta export` writes this file, babyberta_gpt2_torch.py, babyberta_torch.py and an
`auto_map` into the folder; load it with
AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True), which runs these files from
the folder). Softmax models need none of this: they are plain GPT2LMHeadModel.

The model keeps HF GPT-2's parameter names and Conv1D layout (transformer.wte, transformer.wpe,
transformer.h.{i}.ln_1 / attn.c_attn / attn.c_proj / ln_2 / mlp.c_fc / mlp.c_proj, the function's
values under transformer.h.{i}.attn., transformer.ln_f; the head tied to wte) and computes
babyberta_gpt2_torch.forward: HF's GPT2LMHeadModel with the configured function, in eval mode (no
dropout). attention_mask (1 = token) marks padding on either side; positions count real tokens
from 0. Inference only: no training through this class, no key-value cache (generate() recomputes
the whole prefix).
"""
from torch import nn
from transformers import PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

from .babyberta_gpt2_torch import forward, parameter_shapes
from .babyberta_torch import add_parameters


class BabyBertaGPT2Config(PretrainedConfig):
    model_type = "babyberta_gpt2"

    def __init__(self, vocab_size=8192, n_embd=256, n_layer=8, n_head=8, n_inner=1024,
                 n_positions=128, layer_norm_epsilon=1e-5, attention_scoring="softmax",
                 pad_token_id=1, bos_token_id=3, eos_token_id=4, tie_word_embeddings=True,
                 **kwargs):
        super().__init__(pad_token_id=pad_token_id, bos_token_id=bos_token_id,
                         eos_token_id=eos_token_id, tie_word_embeddings=tie_word_embeddings,
                         **kwargs)
        self.vocab_size = vocab_size
        self.n_embd = n_embd
        self.n_layer = n_layer
        self.n_head = n_head
        self.n_inner = n_inner
        self.n_positions = n_positions
        self.layer_norm_epsilon = layer_norm_epsilon
        self.attention_scoring = attention_scoring


class BabyBertaGPT2LMHeadModel(PreTrainedModel):
    config_class = BabyBertaGPT2Config

    def __init__(self, config):
        super().__init__(config)
        add_parameters(self, parameter_shapes(config.to_dict()))
        self.post_init()

    def _init_weights(self, module):
        pass  # every parameter comes from model.safetensors

    def forward(self, input_ids, attention_mask=None, labels=None, **kwargs):
        logits = forward(dict(self.named_parameters()), input_ids, self.config.to_dict(),
                         attention_mask=attention_mask)
        loss = None
        if labels is not None:  # HF's shift: position t predicts token t + 1
            loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                               labels[:, 1:].reshape(-1), ignore_index=-100)
        return CausalLMOutput(loss=loss, logits=logits)
