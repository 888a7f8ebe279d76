"""The current heat as Lightnet's integration API takes it: seat (0-based node index),
callsign, band/channel/frequency from the active frequency set, seat colour."""
import json
import logging

logger = logging.getLogger(__name__)


def _color(packed):
    try:
        return '#{:06x}'.format(int(packed) & 0xFFFFFF)
    except (TypeError, ValueError):
        return None


def _int_or_none(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def build_heat(rhapi):
    """Snapshot of the current heat; seats without a pilot are sent with an empty callsign."""
    heat_id = rhapi.race.heat
    seat_count = rhapi.race.slots or 0
    freqs = {}
    try:
        freqs = json.loads(rhapi.race.frequencyset.frequencies or '{}')
    except (AttributeError, TypeError, ValueError):
        freqs = {}
    bands, channels, mhz = freqs.get('b') or [], freqs.get('c') or [], freqs.get('f') or []
    colors = list(rhapi.race.seat_colors or [])
    pilots_by_seat = {}
    heat_name = ''
    if heat_id:
        heat = rhapi.db.heat_by_id(heat_id)
        heat_name = getattr(heat, 'display_name', None) or getattr(heat, 'name', '') or ''
        for slot in rhapi.db.slots_by_heat(heat_id) or []:
            if slot.pilot_id:
                pilots_by_seat[slot.node_index] = slot.pilot_id
    else:
        # Practice mode: RotorHazard still knows the pilot per seat.
        for idx, pid in enumerate(rhapi.race.pilots or []):
            if pid:
                pilots_by_seat[idx] = pid
    seats = []
    for seat in range(min(seat_count, 64)):
        pid = pilots_by_seat.get(seat)
        callsign = ''
        if pid:
            pilot = rhapi.db.pilot_by_id(pid)
            callsign = (getattr(pilot, 'callsign', '') or '') if pilot else ''
        band = bands[seat] if seat < len(bands) else None
        channel = channels[seat] if seat < len(channels) else None
        frequency = mhz[seat] if seat < len(mhz) else None
        seats.append({
            'seat': seat,
            'callsign': callsign[:64],
            'pilot_id': _int_or_none(pid),
            'band': band[:4] if isinstance(band, str) and band else None,
            'channel': _int_or_none(channel) if band else None,
            'frequency': _int_or_none(frequency) if frequency else None,
            'color': _color(colors[seat]) if seat < len(colors) else None,
        })
    return {
        'heat_id': _int_or_none(heat_id) if heat_id else None,
        'heat_name': str(heat_name)[:128],
        'round': _int_or_none(getattr(rhapi.race, 'round', None)) if heat_id else None,
        'seats': seats,
    }
