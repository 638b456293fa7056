"""The Python client: the scenarios of scenarios.c through libSpringKernelC with ctypes (how engine
teams script their tools). Prints the same lines. Usage: python3 scenarios.py path/to/libSpringKernelC.so"""
import ctypes
import sys
from ctypes import POINTER, byref, c_double, c_float, c_int32, c_size_t, c_uint64

lib = ctypes.CDLL(sys.argv[1])
u64p, f32p, i32p = POINTER(c_uint64), POINTER(c_float), POINTER(c_int32)
SIGNATURES = {
    "sk_bank_create": [c_int32, c_int32, c_size_t, u64p],
    "sk_bank_destroy": [c_uint64],
    "sk_bank_add_f32": [c_uint64, c_size_t, f32p, f32p, f32p, c_double, c_double, c_double, c_float, u64p],
    "sk_bank_add_q16": [c_uint64, c_size_t, i32p, i32p, i32p, c_double, c_double, c_double, c_int32, u64p],
    "sk_mask_create": [c_uint64, u64p, c_size_t, u64p],
    "sk_mask_pause": [c_uint64, c_uint64],
    "sk_mask_resume_f32": [c_uint64, c_uint64, u64p, f32p, f32p, c_size_t],
    "sk_mask_resume_q16": [c_uint64, c_uint64, u64p, i32p, i32p, c_size_t],
    "sk_bank_set_state_f32": [c_uint64, u64p, f32p, f32p, c_size_t],
    "sk_bank_set_state_q16": [c_uint64, u64p, i32p, i32p, c_size_t],
    "sk_bank_retarget_f32": [c_uint64, u64p, f32p, c_size_t],
    "sk_bank_retarget_q16": [c_uint64, u64p, i32p, c_size_t],
    "sk_bank_step": [c_uint64, c_double],
    "sk_bank_rested": [c_uint64, u64p, c_size_t, POINTER(c_size_t)],
    "sk_bank_counts": [c_uint64, POINTER(c_size_t), POINTER(c_size_t), u64p],
    "sk_bank_rest_time": [c_uint64, u64p, c_size_t, POINTER(c_double)],
    "sk_bank_read_f32": [c_uint64, c_int32, u64p, c_size_t, f32p],
    "sk_bank_read_q16": [c_uint64, c_int32, u64p, c_size_t, i32p],
    "sk_bank_state_hash": [c_uint64, u64p],
    "sk_bank_set_user_values": [c_uint64, u64p, u64p, c_size_t],
    "sk_bank_layout": [c_uint64, c_int32, POINTER(c_size_t), u64p],
    "sk_layout_read_f32": [c_uint64, c_int32, c_int32, c_uint64, f32p, c_size_t],
    "sk_layout_read_user_values": [c_uint64, c_int32, c_uint64, u64p, c_size_t],
    "sk_layout_retarget_f32": [c_uint64, c_int32, c_uint64, f32p, c_size_t],
}
SK_OK, SK_SHORT_BUFFER, FLOAT32, Q16, VALUE, TARGET = 0, 102, 0, 1, 0, 2
REGION_ALL, REGION_MOVING = 0, 1
lib.sk_status_name.argtypes, lib.sk_status_name.restype = [c_int32], ctypes.c_char_p


class KernelError(Exception):
    pass


def bind(name, argtypes):
    function = getattr(lib, name)
    function.argtypes, function.restype = argtypes, c_int32

    def call(*args):
        status = function(*args)
        if status != SK_OK:
            raise KernelError("%s: %s" % (name, lib.sk_status_name(status).decode()))
    return call


sk = {name: bind(name, argtypes) for name, argtypes in SIGNATURES.items()}


def rested(bank):
    count = c_size_t(0)
    status = lib.sk_bank_rested(bank, None, 0, byref(count))
    if status == SK_OK:
        return []
    assert status == SK_SHORT_BUFFER, status
    springs = (c_uint64 * count.value)()
    sk["sk_bank_rested"](bank, springs, count, byref(count))
    return list(springs)


def awake(bank):
    count = c_size_t(0)
    sk["sk_bank_counts"](bank, None, byref(count), None)
    return count.value


def state_hash(bank):
    hash_ = c_uint64(0)
    sk["sk_bank_state_hash"](bank, byref(hash_))
    return hash_.value


def drag_to_open(fixed):
    """DragToOpen; `fixed` runs it in Q16.16 with raw int32 values."""
    one, ctype, suffix = (65536, c_int32, "q16") if fixed else (1, c_float, "f32")
    v = lambda units: ctype(units * one)
    bank = c_uint64(0)
    sk["sk_bank_create"](Q16 if fixed else FLOAT32, 1, 0, byref(bank))
    bank = bank.value
    springs = (c_uint64 * 4)()
    values = (ctype * 4)(*[units * one for units in (0, 10, 20, 30)])
    targets = (ctype * 4)()
    tolerance = one // 2 if fixed else 0.5
    sk["sk_bank_add_" + suffix](bank, 4, values, targets, None, 342, 30, 1, tolerance, springs)
    x = c_uint64(springs[0])
    mask = c_uint64(0)
    sk["sk_mask_create"](bank, byref(x), 1, byref(mask))
    sk["sk_mask_pause"](bank, mask)
    will_open = False
    for frame in range(1, 31):
        finger = 5 * frame
        sk["sk_bank_set_state_" + suffix](bank, byref(x), byref(v(finger)), byref(v(0)), 1)
        if finger > 100 and not will_open:
            sk["sk_bank_retarget_" + suffix](bank, byref(x), byref(v(200)), 1)
            will_open = True
        if finger <= 100 and will_open:
            sk["sk_bank_retarget_" + suffix](bank, byref(x), byref(v(0)), 1)
            will_open = False
        sk["sk_bank_step"](bank, 1 / 60)
    sk["sk_mask_resume_" + suffix](bank, mask, byref(x), byref(v(150)), byref(v(900)), 1)
    rest_time = c_double(0)
    sk["sk_bank_rest_time"](bank, byref(x), 1, byref(rest_time))
    rest_frame, frame = -1, 1
    while frame <= 600 and awake(bank) > 0:
        sk["sk_bank_step"](bank, 1 / 60)
        if x.value in rested(bank):
            rest_frame = frame
        frame += 1
    value = ctype(0)
    sk["sk_bank_read_" + suffix](bank, VALUE, byref(x), 1, byref(value))
    shown = "%d" % value.value if fixed else "%.6f" % value.value
    print("drag-to-open %s: rest time %.6f s, rest frame %d, value %s, hash %016x"
          % ("q16" if fixed else "float32", rest_time.value, rest_frame, shown, state_hash(bank)))
    sk["sk_bank_destroy"](bank)


def frame_loop():
    n, frames = 100000, 120
    half = n // 2
    values = (c_float * n)(*[(i % 1000) * 0.5 for i in range(n)])
    targets = (c_float * n)(*[((i * 7) % 1000) * 0.5 for i in range(n)])
    velocities = (c_float * n)(*[i % 13 - 6 for i in range(n)])
    springs = (c_uint64 * n)()
    bank = c_uint64(0)
    sk["sk_bank_create"](FLOAT32, 1, n, byref(bank))
    bank = bank.value
    at = lambda array, ctype, offset: ctypes.cast(ctypes.byref(array, offset * ctypes.sizeof(ctype)), POINTER(ctype))
    sk["sk_bank_add_f32"](bank, half, values, targets, velocities, 342, 30, 1, 0.5, springs)
    sk["sk_bank_add_f32"](bank, half, at(values, c_float, half), at(targets, c_float, half), at(velocities, c_float, half),
                          1323, 91, 1, 0.5, at(springs, c_uint64, half))
    every97 = range(0, n, 97)
    moved = (c_uint64 * len(every97))(*[springs[i] for i in every97])
    total_rested = 0
    for frame in range(frames):
        if frame % 10 == 0:
            new_targets = (c_float * len(every97))(*[(i + frame) % 500 for i in every97])
            sk["sk_bank_retarget_f32"](bank, moved, new_targets, len(every97))
        sk["sk_bank_step"](bank, 1 / 60 if frame % 2 == 0 else 1 / 90)
        total_rested += len(rested(bank))
        sk["sk_bank_read_f32"](bank, VALUE, springs, n, values)
    bits = (ctypes.c_uint32 * n).from_buffer(values)
    print("frame-loop float32: %d springs, %d frames, rested %d, awake %d, value bits %d, hash %016x"
          % (n, frames, total_rested, awake(bank), sum(bits), state_hash(bank)))
    sk["sk_bank_destroy"](bank)


def layout(bank, region):
    count, version = c_size_t(0), c_uint64(0)
    sk["sk_bank_layout"](bank, region, byref(count), byref(version))
    return count.value, version.value


def storage_order():
    """An engine's frame in storage order, as storage_order in scenarios.c."""
    n, half, frames = 10000, 5000, 60
    values = (c_float * n)(*[(i % 1000) * 0.5 for i in range(n)])
    targets = (c_float * n)(*[((i * 7) % 1000) * 0.5 for i in range(n)])
    velocities = (c_float * n)(*[i % 13 - 6 for i in range(n)])
    ids = (c_uint64 * n)(*range(n))
    springs, by_handle = (c_uint64 * n)(), (c_float * n)()
    bank = c_uint64(0)
    sk["sk_bank_create"](FLOAT32, 1, n, byref(bank))
    bank = bank.value
    at = lambda array, ctype, offset: ctypes.cast(ctypes.byref(array, offset * ctypes.sizeof(ctype)), POINTER(ctype))
    sk["sk_bank_add_f32"](bank, half, values, targets, velocities, 342, 30, 1, 0.5, springs)
    sk["sk_bank_add_f32"](bank, half, at(values, c_float, half), at(targets, c_float, half), at(velocities, c_float, half),
                          1323, 91, 1, 0.5, at(springs, c_uint64, half))
    sk["sk_bank_set_user_values"](bank, springs, ids, n)
    value_bits, expected_bits = (ctypes.c_uint32 * n).from_buffer(values), (ctypes.c_uint32 * n).from_buffer(by_handle)
    total, reads, mismatches = 0, 0, 0
    for frame in range(frames):
        sk["sk_bank_step"](bank, 1 / 60)
        count, version = layout(bank, REGION_MOVING)
        sk["sk_layout_read_user_values"](bank, REGION_MOVING, version, ids, count)
        sk["sk_layout_read_f32"](bank, VALUE, REGION_MOVING, version, values, count)
        sk["sk_bank_read_f32"](bank, VALUE, springs, n, by_handle)
        for k in range(count):
            total += (ids[k] + 1) * value_bits[k]
            mismatches += value_bits[k] != expected_bits[ids[k]]
        reads += count
        if frame % 10 == 0:
            count, version = layout(bank, REGION_ALL)
            sk["sk_layout_read_user_values"](bank, REGION_ALL, version, ids, count)
            sk["sk_layout_read_f32"](bank, TARGET, REGION_ALL, version, targets, count)
            for k in range(count):
                if ids[k] % 5 == 0:
                    targets[k] = (ids[k] + frame) % 300
            sk["sk_layout_retarget_f32"](bank, REGION_ALL, version, targets, count)
    print("storage-order float32: %d springs, %d frames, moving values read %d, id-value sum %d, mismatches %d, awake %d, hash %016x"
          % (n, frames, reads, total % (1 << 64), mismatches, awake(bank), state_hash(bank)))
    sk["sk_bank_destroy"](bank)


drag_to_open(fixed=False)
drag_to_open(fixed=True)
frame_loop()
storage_order()
