"""The generalized Hough transform: votecl_ght_*."""
import ctypes
from typing import Any, Dict, Optional

from . import _structs as S
from ._core import Context, Plan, Records, image_view
from ._helpers import _ENUMS, _enum_values, _collect, _params, _params_dict
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
    returns Pose records (x, y, angle, scale, votes, ...), best first. Host images only.
    angle: degrees in [0, 360), clockwise on screen (image coordinates, y down), the opposite
    sense of cv2.getRotationMatrix2D: a template it turns by A is reported at 360 - A, an
    unrotated one at 0."""

    _free = fn.ght_model_free

    def __init__(self, context: Optional[Context] = None, template: Any = None,
                 method: str = "guil", **params: Any) -> None:
        super().__init__(context)
        p = _params(S.votecl_ght_params, fn.ght_params_init, params,
                    _enum_values({"method": method})["method"])
        view, keep = image_view(template, "template")
        self._new_handle(fn.ght_model_new, ctypes.byref(p), ctypes.byref(view))

    @property
    def params(self) -> Dict[str, Any]:
        """The model's resolved parameters (votecl_ght_params) as a dict."""
        return _params_dict(fn.ght_model_params, self._handle, S.votecl_ght_params)

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
        return self._query(fn.ght_model_last_stats, S.votecl_ght_stats, "GhtStats")
