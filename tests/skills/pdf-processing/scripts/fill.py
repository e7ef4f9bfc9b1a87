"""Fill a PDF form's fields from a JSON file of values."""
import json
import sys


def main(form: str, values: str) -> None:
    with open(values, encoding="utf-8") as f:
        fields = json.load(f)
    print(f"would fill {len(fields)} fields of {form}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
