"""transformers classes for a babyberta.cpp model whose attention scoring function is not softmax
(`babyberta export` writes this file, babyberta_torch.py and an `auto_map` into the folder; load
it with AutoModelForMaskedLM.from_pretrained(folder, trust_remote_code=True), which runs these two
files from the folder). Softmax models need none of this: they are plain RobertaForMaskedLM.

The model keeps HF RoBERTa's parameter names (roberta.embeddings..., roberta.encoder.layer.{i}...,
lm_head...; the decoder tied to the word embeddings) and computes babyberta_torch.forward: HF's
RobertaForMaskedLM with the configured scoring function, in eval mode (no dropout). Padding is
taken from input_ids == pad_token_id (right padding, as HF tokenizers pad); attention_mask is
accepted for compatibility and must agree with it. Inference only: no training through this class.
"""
from torch import nn
from transformers import PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import MaskedLMOutput

from .babyberta_torch import add_parameters, forward, parameter_shapes


class BabyBertaConfig(PretrainedConfig):
    model_type = "babyberta"

    def __init__(self, vocab_size=8192, hidden_size=256, num_hidden_layers=8,
                 num_attention_heads=8, intermediate_size=1024, max_position_embeddings=130,
                 type_vocab_size=1, layer_norm_eps=1e-5, attention_scoring="softmax",
                 pad_token_id=1, bos_token_id=3, eos_token_id=4, **kwargs):
        super().__init__(pad_token_id=pad_token_id, bos_token_id=bos_token_id,
                         eos_token_id=eos_token_id, **kwargs)
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.max_position_embeddings = max_position_embeddings
        self.type_vocab_size = type_vocab_size
        self.layer_norm_eps = layer_norm_eps
        self.attention_scoring = attention_scoring


class BabyBertaForMaskedLM(PreTrainedModel):
    config_class = BabyBertaConfig

    def __init__(self, config):
        super().__init__(config)
        add_parameters(self, parameter_shapes(config.to_dict()))
        self.post_init()

    def _init_weights(self, module):
        pass  # every parameter comes from model.safetensors

    def forward(self, input_ids, attention_mask=None, labels=None, **kwargs):
        logits = forward(dict(self.named_parameters()), input_ids, self.config.to_dict())
        loss = None
        if labels is not None:
            loss = nn.functional.cross_entropy(logits.view(-1, logits.shape[-1]),
                                               labels.view(-1), ignore_index=-100)
        return MaskedLMOutput(loss=loss, logits=logits)
