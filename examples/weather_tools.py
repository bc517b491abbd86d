"""The tools both weather examples share: a lookup that runs freely, an alert that needs the user's go-ahead.

The weather is made up (no weather service, no key): the point is the tool round, not the forecast.
"""

from __future__ import annotations

import zlib
from typing import Any

CONDITIONS = ("sunny", "cloudy", "rainy", "windy", "snowy")
SENT: list[dict[str, str]] = []


def get_weather(city: str) -> dict[str, Any]:
    """The current weather in a city.

    Args:
        city: The city's name, e.g. Paris.
    """
    seed = zlib.crc32(city.strip().lower().encode())
    return {"city": city, "condition": CONDITIONS[seed % len(CONDITIONS)], "temperature_c": seed % 35 - 5}


def send_weather_alert(email: str, message: str) -> str:
    """Email a weather alert to someone. Only after the user approves it.

    Args:
        email: Who gets the alert.
        message: The alert's text.
    """
    SENT.append({"email": email, "message": message})  # a real agent would send mail here
    return f"Alert sent to {email}."


SYSTEM = (
    "You are a weather assistant. Use get_weather for current conditions. When the user asks to warn "
    "or notify someone, call send_weather_alert; the user approves each alert before it goes out."
)
