def get_cpu_capability():
    return "DEFAULT"
