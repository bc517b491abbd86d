"""The OpenAI Responses door: ``/v1/responses`` (``routes``), its stored responses (``state``)."""
