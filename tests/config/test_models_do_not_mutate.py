"""Validators check; they never assign (ADR 0002). A default that depends on other fields is a
property of the model; one that depends on the profile is filled in before validation. So a
model handed to a stack or a component comes back as it went in."""

import ast
import copy
import inspect
import textwrap

import pydantic
import trainstack.config as config
from trainstack import validate_stack_config
from trainstack.config import ConfigModel, EksConfig, NetworkConfig


def config_models() -> list[type[ConfigModel]]:
    return [value for value in vars(config).values()
            if inspect.isclass(value) and issubclass(value, ConfigModel) and value is not ConfigModel]


def assignments_to_self(model: type[ConfigModel]) -> list[str]:
    """``Model.method: self.x = ...`` for every assignment to an attribute of ``self`` in the class body."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(model)))
    found = []
    for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(function):
            targets = (node.targets if isinstance(node, ast.Assign) else
                       [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            found += [f"{model.__name__}.{function.name}: {ast.unparse(t)} = ..." for t in targets if _in_self(t)]
    return found


def _in_self(target: ast.expr) -> bool:
    """``self.x``, ``self.block.x``, ``self.x[k]``: anything written inside the model."""
    if not isinstance(target, (ast.Attribute, ast.Subscript)):
        return False
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return isinstance(target, ast.Name) and target.id == "self"


def test_no_config_model_assigns_to_itself():
    assert len(config_models()) > 20
    assert [line for model in config_models() for line in assignments_to_self(model)] == []


def test_the_scan_finds_an_assigning_validator():
    class Resolving(ConfigModel):
        size: int | None = None

        @pydantic.model_validator(mode="after")
        def _resolve(self) -> "Resolving":
            self.size = self.size or 1
            return self

    class ResolvingBelow(ConfigModel):
        block: Resolving = Resolving()

        @pydantic.model_validator(mode="after")
        def _resolve(self) -> "ResolvingBelow":
            self.block.size = 2
            return self

    assert assignments_to_self(Resolving) == ["Resolving._resolve: self.size = ..."]
    assert assignments_to_self(ResolvingBelow) == ["ResolvingBelow._resolve: self.block.size = ..."]


def test_a_stack_leaves_the_raw_config_and_the_blocks_it_was_given_as_they_were(valid_config):
    valid_config["profile"] = "production"
    eks = EksConfig()
    network = NetworkConfig.model_validate(valid_config["network"])
    raw = {**valid_config, "eks": eks, "network": network}
    before = copy.deepcopy(raw)
    stack = validate_stack_config(raw)
    assert (stack.eks.endpoint_access, stack.network.nat_gateways) == ("private", "perZone")
    assert (eks.endpoint_access, network.nat_gateways) == (None, None)
    assert raw == before


def test_profile_defaults_fill_snake_case_blocks_in_their_own_spelling(valid_config):
    valid_config["network"] = {"zones": valid_config["network"]["zones"], "nat_gateways": None}
    assert validate_stack_config(valid_config).network.nat_gateways == "single"


def test_resolved_values_are_read_from_the_model_not_written_into_it(valid_config):
    valid_config["nodeGroups"][0].pop("efa", None)
    stack = validate_stack_config(valid_config)
    group = stack.node_groups[0]
    assert (group.efa, group.placement_group) == (None, None)
    assert (group.efa_enabled, group.in_placement_group) == (True, True)
    assert (stack.network.vpc_cidr, stack.network.new_vpc_cidr) == (None, "10.0.0.0/16")
    assert (stack.eks.vpc_cni.minimum_ip_target, stack.eks.vpc_cni.minimum_ips) == (None, 16)
