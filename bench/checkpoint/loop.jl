# The checkpointed-loop benchmark row (bench/checkpoint/run): the logistic map iterated n
# times, plainly and under `# zy: checkpoint`; same value and gradient, different tape.

function plain_loop(x, h, n)
    for i in 1:n
        x = x + h * x * (1.0 - x)
    end
    return x
end

function checkpointed_loop(x, h, n)
    # zy: checkpoint
    for i in 1:n
        x = x + h * x * (1.0 - x)
    end
    return x
end
