"""graphsweep's Dask configuration checked against the shipped defaults, its schema: a misspelt key
or a value of the wrong kind is one error naming the key (and the closest known one), whichever
way it was set; the maps whose keys the user names (profiles, resources) stay open."""

import os
import subprocess
import sys

import dask
import pytest
from graphsweep.core.errors import ParameterError
from graphsweep.pipeline import config


def test_the_shipped_defaults_are_sound():
    config.check()
    assert config.get("cluster.profile") == "auto"


@pytest.mark.parametrize("setting,message", [
    ({"graphsweep.cluster.proflie": "local-cpu"}, "graphsweep.cluster.proflie: not a graphsweep setting .* did you mean "
                                                  "graphsweep.cluster.profile"),
    ({"graphsweep.wroker": {"load-threads": 2}}, "graphsweep.wroker: not a graphsweep setting .*did you mean "
                                                 "graphsweep.worker"),
    ({"graphsweep.worker.load-threads": "eight"}, "load-threads: 'eight' is not a whole number"),
    ({"graphsweep.worker.warm-start": "false"}, "warm-start: 'false' is not true or false"),
    ({"graphsweep.run.progress-interval": "soon"}, "progress-interval: 'soon' is not a duration"),
    ({"graphsweep.cluster.profiles": ["local-cpu"]}, "graphsweep.cluster.profiles: expected a mapping"),
])
def test_a_wrong_setting_is_one_error_naming_it(setting, message):
    with dask.config.set(setting), pytest.raises(ParameterError, match=message):
        config.get("cluster.profile")
    config.get("cluster.profile")           # and it is found sound again once the setting is gone


def test_named_maps_underscores_and_durations_pass():
    with dask.config.set({"graphsweep.worker.gpu-resources": {"GPU": 1, "NVLINK": 1},
                          "graphsweep.cluster.profiles.mine": {"kind": "address", "address": "tcp://h:8786"},
                          "graphsweep.worker.load_threads": 4, "graphsweep.run.progress-interval": 30}):
        assert config.get("worker.load-threads") == 4


def test_a_misspelt_environment_variable_is_one_line_from_the_cli(tmp_path):
    env = {"DASK_GRAPHSWEEP__CLUSTER__PROFLIE": "local-cpu", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "graphsweep.pipeline.cli", "status", str(tmp_path)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("graphsweep: error: configuration "
                                                         "graphsweep.cluster.proflie: not a graphsweep setting")
    assert "Traceback" not in out.stderr


def test_a_key_given_twice_in_a_dask_config_file_is_one_error_naming_its_line(tmp_path, monkeypatch):
    """Dask keeps a repeated key's last value; graphsweep's settings in its config files may not."""
    (tmp_path / "graphsweep.yaml").write_text("graphsweep:\n  worker:\n    load-threads: 3\n    load-threads: 4\n")
    (tmp_path / "other.yaml").write_text("distributed:\n  a: 1\n")      # no graphsweep settings: not ours
    monkeypatch.setattr(dask.config, "paths", [str(tmp_path)])
    monkeypatch.setattr(config, "_checked", [])                          # not the sound configuration seen before
    with pytest.raises(ParameterError) as err:
        config.check()
    assert str(err.value) == f"{tmp_path / 'graphsweep.yaml'}:4:5: duplicate key 'load-threads' (first given at line 3)"


def test_a_malformed_dask_config_file_is_one_line_from_the_cli(tmp_path):
    """Dask parses its config files when first imported and fails that import (a traceback of
    several screens); the CLI names the file, line and column in one line."""
    (tmp_path / "graphsweep.yaml").write_text("graphsweep:\n  cluster: {profile: local-cpu\n  worker: {}\n")
    env = {"DASK_CONFIG": str(tmp_path), "PATH": "/usr/bin:/bin",
           **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}   # the graphsweep under test
    out = subprocess.run([sys.executable, "-m", "graphsweep.pipeline.cli", "status", str(tmp_path)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.strip() == (f"graphsweep: error: {tmp_path / 'graphsweep.yaml'}:3:9: not valid YAML: expected ',' "
                                  f"or '}}', but got ':' (while parsing a flow mapping at line 2)")
