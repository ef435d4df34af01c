"""The generalized Hough transform: votecl_ght_*."""
import ctypes
from typing import Any, Dict, Optional

from . import _structs as S
from ._core import Context, Plan, Records, fill, image_view, record, struct_dict
from ._helpers import _ENUMS, _enum_values, _collect
from ._lib import fn

__all__ = ["GHT"]

_ENUMS["method"] = {"guil": S.VOTECL_GHT_GUIL, "ballard": S.VOTECL_GHT_BALLARD}
_ENUMS["pairing"] = {"auto": S.VOTECL_GHT_PAIRING_AUTO, "lb": S.VOTECL_GHT_PAIRING_LB,
                     "ssm": S.VOTECL_GHT_PAIRING_SSM}


class GHT(Plan):
    """The generalized Hough transform (votecl_ght_*): a model of a template (uint8, one
    channel) found in images of any size. method: "guil" (rotation, scale, position) or
    "ballard" (R-table). Keywords: fields of votecl_ght_params (levels, canny_low, canny_high,
    min_angle, max_angle, angle_step, min_scale, max_scale, scale_step, dp, ...). detect()
    returns Pose records (x, y, angle, scale, votes, ...), best first. Host images only."""

    _free = fn.ght_model_free

    def __init__(self, context: Optional[Context] = None, template: Any = None,
                 method: str = "guil", **params: Any) -> None:
        super().__init__(context)
        p = S.votecl_ght_params()
        fn.ght_params_init(ctypes.byref(p), _enum_values({"method": method})["method"])
        fill(p, _enum_values(params))
        view, keep = image_view(template, "template")
        h = ctypes.c_void_p()
        self._check(fn.ght_model_new(self.context._handle, ctypes.byref(p), ctypes.byref(view),
                                     ctypes.byref(h)))
        self._handle = h.value

    @property
    def params(self) -> Dict[str, Any]:
        """The model's resolved parameters (votecl_ght_params) as a dict."""
        p = S.votecl_ght_params()
        fn.ght_model_params(self._handle, ctypes.byref(p))
        return struct_dict(p)

    def detect(self, image: Any) -> Records:
        """Poses of the template in image, a uint8 (H, W) array: Pose records (x, y, angle,
        scale, votes, ...), most votes first.

        >>> poses = votecl.GHT(ctx, template, "ballard").detect(scene)
        """
        view, keep = image_view(image)

        def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
            self._check(fn.ght_detect(self._handle, ctypes.byref(view), out, capacity,
                                      ctypes.byref(found)))
        return _collect(call, S.votecl_ght_pose, "Pose", 64)

    @property
    def stats(self) -> Any:
        """The last detection's figures (a GhtStats record: template and image edges and
        pairings, candidates, seconds spent on edges and pairing)."""
        s = S.votecl_ght_stats()
        self._check(fn.ght_model_last_stats(self._handle, ctypes.byref(s)))
        return record(s, "GhtStats")
