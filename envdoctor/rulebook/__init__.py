"""What holds across every kind of rule: validation (`rules test`) and the one catalog of
rule documentation (`rules show`, `explain CODE`).

It sits above ``engine`` (checks), ``explain`` (error signatures) and ``gate`` (requirements
and policies) because it reads all three; none of them imports it.
"""
