print("spring-bench")
